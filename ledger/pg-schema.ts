import pg from 'pg'
import { LedgerError } from './ledger-error.js'
import { openPool, shownUrl, type PoolSettings } from './pg-connection.js'
import { PgHealth } from './pg-health.js'
import { whole, type Row } from './pg-rows.js'

/**
 * The PostgreSQL ledger's schema, in numbered migrations, and the version a database is
 * at (table carmarket_schema). `carmarket ledger migrate` brings a database to the
 * newest; an engine opens only a database at exactly the version it was written for.
 *
 * Migrations are additive (new tables, new columns with defaults, new functions under
 * new names), so that servers already running keep serving while one runs and after.
 * Each one is a transaction of its own; a migrate holds an advisory lock from the first
 * to the last: two migrates at once take turns, and the second finds the work done.
 */

interface Migration {
  readonly version: number
  readonly sql: string
}

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE carmarket_accounts (
        id text PRIMARY KEY,
        email text NOT NULL,
        -- One account per mailbox (ledger/mailbox.ts), whatever spelling of it opened the account.
        mailbox text NOT NULL UNIQUE,
        status text NOT NULL CHECK (status IN ('active', 'disabled')),
        balance bigint NOT NULL CHECK (balance >= 0),
        granted bigint NOT NULL,
        used bigint NOT NULL,
        created timestamptz NOT NULL,
        -- The SHA-256 of the current key; the key itself is never stored.
        key_hash text NOT NULL UNIQUE,
        key_prefix text NOT NULL,
        key_delivered boolean NOT NULL,
        -- Entries written so far: the next entry's seq.
        entries integer NOT NULL,
        -- The failure entries of the latest UTC day with failures (days since the epoch): how many, and the newest one's seq.
        failure_day integer,
        failure_entries integer NOT NULL DEFAULT 0,
        failure_last integer
      );

      CREATE TABLE carmarket_entries (
        account_id text NOT NULL REFERENCES carmarket_accounts (id),
        seq integer NOT NULL,
        id text NOT NULL,
        time timestamptz NOT NULL,
        type text NOT NULL CHECK (type IN ('signup_bonus', 'grant', 'charge', 'failed_call')),
        credits bigint NOT NULL,
        balance_after bigint NOT NULL CHECK (balance_after >= 0),
        endpoint text,
        make text,
        model text,
        -- A failed call's year is whatever number its query gave.
        year double precision,
        status text NOT NULL,
        reference text,
        count integer NOT NULL DEFAULT 1,
        PRIMARY KEY (account_id, seq)
      );

      CREATE TABLE carmarket_codes (
        mailbox text PRIMARY KEY,
        hash text NOT NULL,
        expires bigint NOT NULL,
        attempts integer NOT NULL
      );

      CREATE TABLE carmarket_counters (
        kind text NOT NULL,
        time_window bigint NOT NULL,
        who text NOT NULL,
        count integer NOT NULL,
        PRIMARY KEY (kind, time_window, who)
      );

      -- One row, which a probe writes to learn that writes commit.
      CREATE TABLE carmarket_meta (
        only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
        probed timestamptz
      );
      INSERT INTO carmarket_meta DEFAULT VALUES;

      -- Debits in one transaction, in the order given (callers sort them by account, so
      -- that concurrent batches lock accounts in the same order): one row per debit, its
      -- outcome, the balance after it (or the balance that refused it) and the entry's seq
      -- and time. A debit not wanted any more is only looked at, to say why it would have
      -- been refused, as a charge in one read-check-write would.
      CREATE FUNCTION carmarket_charge_batch(
        p_accounts text[], p_costs bigint[], p_wanted boolean[],
        p_endpoints text[], p_makes text[], p_models text[], p_years double precision[]
      ) RETURNS TABLE (o_outcome text, o_balance bigint, o_seq integer, o_time timestamptz)
      LANGUAGE plpgsql AS $$
      DECLARE
        i integer;
        found_status text;
      BEGIN
        FOR i IN 1 .. coalesce(array_length(p_accounts, 1), 0) LOOP
          o_outcome := NULL;
          o_seq := NULL;
          o_time := NULL;
          IF p_wanted[i] THEN
            UPDATE carmarket_accounts a
               SET balance = a.balance - p_costs[i], used = a.used + p_costs[i], entries = a.entries + 1
             WHERE a.id = p_accounts[i] AND a.status = 'active' AND a.balance >= p_costs[i]
            RETURNING a.balance, a.entries - 1 INTO o_balance, o_seq;
            IF FOUND THEN
              o_outcome := 'ok';
              o_time := clock_timestamp();
              INSERT INTO carmarket_entries (account_id, seq, id, time, type, credits, balance_after, endpoint, make, model, year, status, reference, count)
              VALUES (p_accounts[i], o_seq, p_accounts[i] || '-' || o_seq, o_time, 'charge', -p_costs[i], o_balance,
                      p_endpoints[i], p_makes[i], p_models[i], p_years[i], 'success', NULL, 1);
            END IF;
          END IF;
          IF o_outcome IS NULL THEN
            SELECT a.status, a.balance INTO found_status, o_balance FROM carmarket_accounts a WHERE a.id = p_accounts[i];
            o_outcome := CASE
              WHEN NOT FOUND THEN 'unknown_account'
              WHEN found_status <> 'active' THEN 'disabled'
              WHEN o_balance < p_costs[i] THEN 'insufficient_credits'
              ELSE 'not_wanted'
            END;
            o_balance := coalesce(o_balance, 0);
          END IF;
          RETURN NEXT;
        END LOOP;
      END $$;

      -- A failed call: a zero-credit entry, or one more on the count of the account's
      -- newest failure entry when it is the same failure again right after it, or when the
      -- account has had p_per_day failure entries today (UTC, by the server's clock).
      CREATE FUNCTION carmarket_record_failure(
        p_account text, p_endpoint text, p_make text, p_model text, p_year double precision, p_code text, p_per_day integer
      ) RETURNS void
      LANGUAGE plpgsql AS $$
      DECLARE
        a carmarket_accounts%ROWTYPE;
        previous carmarket_entries%ROWTYPE;
        at_time timestamptz;
        today integer;
        entries_today integer := 0;
      BEGIN
        SELECT * INTO a FROM carmarket_accounts WHERE id = p_account FOR UPDATE;
        IF NOT FOUND THEN
          RETURN;
        END IF;
        at_time := clock_timestamp();
        today := floor(extract(epoch FROM at_time) / 86400);
        IF a.failure_day = today THEN
          entries_today := a.failure_entries;
          SELECT * INTO previous FROM carmarket_entries e WHERE e.account_id = p_account AND e.seq = a.failure_last;
          IF FOUND AND (
            entries_today >= p_per_day
            OR (a.failure_last = a.entries - 1 AND previous.type = 'failed_call' AND previous.status = p_code
                AND previous.endpoint IS NOT DISTINCT FROM p_endpoint AND previous.make IS NOT DISTINCT FROM p_make
                AND previous.model IS NOT DISTINCT FROM p_model AND previous.year IS NOT DISTINCT FROM p_year)
          ) THEN
            UPDATE carmarket_entries e SET count = e.count + 1 WHERE e.account_id = p_account AND e.seq = a.failure_last;
            RETURN;
          END IF;
        END IF;
        INSERT INTO carmarket_entries (account_id, seq, id, time, type, credits, balance_after, endpoint, make, model, year, status, reference, count)
        VALUES (p_account, a.entries, p_account || '-' || a.entries, at_time, 'failed_call', 0, a.balance,
                p_endpoint, p_make, p_model, p_year, p_code, NULL, 1);
        UPDATE carmarket_accounts
           SET entries = a.entries + 1, failure_day = today, failure_entries = entries_today + 1, failure_last = a.entries
         WHERE id = p_account;
      END $$;

      -- A one-time code checked: 'ok' (used up), 'wrong' (an attempt counted), 'exhausted'
      -- (the last attempt: gone), 'expired' (gone) or 'none'. The hashes are compared as
      -- hashes of themselves, so the comparison's time tells nothing of the stored one.
      CREATE FUNCTION carmarket_check_code(p_mailbox text, p_hash text, p_now bigint, p_max_attempts integer) RETURNS text
      LANGUAGE plpgsql AS $$
      DECLARE
        c carmarket_codes%ROWTYPE;
      BEGIN
        SELECT * INTO c FROM carmarket_codes WHERE mailbox = p_mailbox FOR UPDATE;
        IF NOT FOUND THEN
          RETURN 'none';
        END IF;
        IF c.expires <= p_now THEN
          DELETE FROM carmarket_codes WHERE mailbox = p_mailbox;
          RETURN 'expired';
        END IF;
        IF sha256(convert_to(c.hash, 'UTF8')) = sha256(convert_to(p_hash, 'UTF8')) THEN
          DELETE FROM carmarket_codes WHERE mailbox = p_mailbox;
          RETURN 'ok';
        END IF;
        IF c.attempts + 1 >= p_max_attempts THEN
          DELETE FROM carmarket_codes WHERE mailbox = p_mailbox;
          RETURN 'exhausted';
        END IF;
        UPDATE carmarket_codes SET attempts = c.attempts + 1 WHERE mailbox = p_mailbox;
        RETURN 'wrong';
      END $$;
    `,
  },
  {
    version: 2,
    sql: `
      -- The batch of debits a charge entry was written by (carmarket_charge_batch_v2); NULL
      -- for every other entry, and for charges of version 1, which kept no batch.
      ALTER TABLE carmarket_entries ADD COLUMN batch uuid;
      CREATE INDEX carmarket_entries_batch ON carmarket_entries (batch) WHERE batch IS NOT NULL;

      -- Batches their sender lost the answer to and then found not committed
      -- (carmarket_batch_outcome): should one reach the server after all, it commits nothing.
      CREATE TABLE carmarket_void_batches (
        batch uuid PRIMARY KEY,
        time timestamptz NOT NULL
      );

      -- carmarket_charge_batch with the batch's id, which its entries record, so that a
      -- sender that lost the answer can learn what the batch did. A new name: servers of
      -- version 1 go on calling theirs while this migration runs. The batch holds the
      -- lock on its id until it commits or rolls back; carmarket_batch_outcome takes it too.
      CREATE FUNCTION carmarket_charge_batch_v2(
        p_batch uuid, p_accounts text[], p_costs bigint[], p_wanted boolean[],
        p_endpoints text[], p_makes text[], p_models text[], p_years double precision[]
      ) RETURNS TABLE (o_outcome text, o_balance bigint, o_seq integer, o_time timestamptz)
      LANGUAGE plpgsql AS $$
      DECLARE
        i integer;
        found_status text;
      BEGIN
        PERFORM pg_advisory_xact_lock(hashtextextended(p_batch::text, 0));
        IF EXISTS (SELECT FROM carmarket_void_batches v WHERE v.batch = p_batch) THEN
          RAISE EXCEPTION 'batch % is void: its sender found it not committed', p_batch;
        END IF;
        FOR i IN 1 .. coalesce(array_length(p_accounts, 1), 0) LOOP
          o_outcome := NULL;
          o_seq := NULL;
          o_time := NULL;
          IF p_wanted[i] THEN
            UPDATE carmarket_accounts a
               SET balance = a.balance - p_costs[i], used = a.used + p_costs[i], entries = a.entries + 1
             WHERE a.id = p_accounts[i] AND a.status = 'active' AND a.balance >= p_costs[i]
            RETURNING a.balance, a.entries - 1 INTO o_balance, o_seq;
            IF FOUND THEN
              o_outcome := 'ok';
              o_time := clock_timestamp();
              INSERT INTO carmarket_entries (account_id, seq, id, time, type, credits, balance_after, endpoint, make, model, year, status, reference, count, batch)
              VALUES (p_accounts[i], o_seq, p_accounts[i] || '-' || o_seq, o_time, 'charge', -p_costs[i], o_balance,
                      p_endpoints[i], p_makes[i], p_models[i], p_years[i], 'success', NULL, 1, p_batch);
            END IF;
          END IF;
          IF o_outcome IS NULL THEN
            SELECT a.status, a.balance INTO found_status, o_balance FROM carmarket_accounts a WHERE a.id = p_accounts[i];
            o_outcome := CASE
              WHEN NOT FOUND THEN 'unknown_account'
              WHEN found_status <> 'active' THEN 'disabled'
              WHEN o_balance < p_costs[i] THEN 'insufficient_credits'
              ELSE 'not_wanted'
            END;
            o_balance := coalesce(o_balance, 0);
          END IF;
          RETURN NEXT;
        END LOOP;
      END $$;

      -- What a batch of debits committed, for a sender that lost the answer to it: its
      -- entries, once the batch is over. A batch still running (its server never noticed
      -- the lost connection) is waited for, on the lock on its id; one that has not
      -- committed is made void, so that it never will, and the answer stays true.
      CREATE FUNCTION carmarket_batch_outcome(p_batch uuid) RETURNS SETOF carmarket_entries
      LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_advisory_xact_lock(hashtextextended(p_batch::text, 0));
        RETURN QUERY SELECT * FROM carmarket_entries e WHERE e.batch = p_batch ORDER BY e.seq;
        IF NOT FOUND THEN
          INSERT INTO carmarket_void_batches (batch, time) VALUES (p_batch, clock_timestamp()) ON CONFLICT DO NOTHING;
        END IF;
      END $$;
    `,
  },
  {
    version: 3,
    sql: `
      -- The request a charge entry was written for within its batch (carmarket_charge_batch_v3):
      -- a batch that lost its answer gives each request the entries that are its own.
      ALTER TABLE carmarket_entries ADD COLUMN batch_group integer;

      -- The account's Idempotency-Keys: the next one's place in order, and how many are kept.
      ALTER TABLE carmarket_accounts
        ADD COLUMN idempotency_next bigint NOT NULL DEFAULT 0,
        ADD COLUMN idempotency_count integer NOT NULL DEFAULT 0;

      -- An account's use of an Idempotency-Key: held by a call in flight (token, until
      -- lease_until), or answered (parts, and each debit's outcome: charged and the balance
      -- after it or that refused it). Kept from created for the key's time to live.
      CREATE TABLE carmarket_idempotency (
        account_id text NOT NULL REFERENCES carmarket_accounts (id),
        key text NOT NULL,
        seq bigint NOT NULL,
        fingerprint text NOT NULL,
        created timestamptz NOT NULL,
        token text,
        lease_until timestamptz,
        parts text,
        charged boolean[],
        balances bigint[],
        PRIMARY KEY (account_id, key)
      );
      -- The answered keys of an account, oldest first, for forgetting the oldest. Partial, so
      -- that it never matches a look-up by key: the planner, without statistics yet, would
      -- take it for one as readily as the primary key, and scan an account's every key.
      CREATE INDEX carmarket_idempotency_order ON carmarket_idempotency (account_id, seq) WHERE parts IS NOT NULL;
      CREATE INDEX carmarket_idempotency_created ON carmarket_idempotency (created);

      -- A key's use as the account's newest (the caller holds the account's row); its oldest
      -- answered ones are forgotten past p_limit (keys held by calls in flight, a few at a
      -- time, are let go or answered within seconds).
      CREATE FUNCTION carmarket_idempotency_insert(
        p_account text, p_key text, p_fingerprint text, p_created timestamptz, p_token text, p_lease timestamptz,
        p_parts text, p_charged boolean[], p_balances bigint[], p_limit integer
      ) RETURNS void
      LANGUAGE plpgsql AS $$
      DECLARE
        v_seq bigint;
        v_count integer;
        v_gone integer;
      BEGIN
        UPDATE carmarket_accounts
           SET idempotency_next = idempotency_next + 1, idempotency_count = idempotency_count + 1
         WHERE id = p_account
        RETURNING idempotency_next - 1, idempotency_count INTO v_seq, v_count;
        IF v_count > p_limit THEN
          WITH oldest AS (
            DELETE FROM carmarket_idempotency i
             WHERE i.account_id = p_account AND i.seq IN (
               SELECT o.seq FROM carmarket_idempotency o WHERE o.account_id = p_account AND o.parts IS NOT NULL
                ORDER BY o.seq LIMIT v_count - p_limit)
            RETURNING 1
          )
          SELECT count(*) INTO v_gone FROM oldest;
          UPDATE carmarket_accounts SET idempotency_count = idempotency_count - v_gone WHERE id = p_account;
        END IF;
        INSERT INTO carmarket_idempotency (account_id, key, seq, fingerprint, created, token, lease_until, parts, charged, balances)
        VALUES (p_account, p_key, v_seq, p_fingerprint, p_created, p_token, p_lease, p_parts, p_charged, p_balances);
      END $$;

      -- A key's use removed (the caller holds the account's row).
      CREATE FUNCTION carmarket_idempotency_drop(p_account text, p_key text) RETURNS void
      LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM carmarket_idempotency WHERE account_id = p_account AND key = p_key;
        IF FOUND THEN
          UPDATE carmarket_accounts SET idempotency_count = idempotency_count - 1 WHERE id = p_account;
        END IF;
      END $$;

      -- Takes up a key for a call: 'started' (now held by p_token), 'done' (answered before,
      -- with the same request: its answer), 'in_flight' (held by a call whose lease runs)
      -- or 'reused' (another request). A key held or let go needs no flush to disk: lost in
      -- a crash, it is taken up again, and the debit that stores an answer checks the key
      -- once more in its own, synchronous, transaction.
      CREATE FUNCTION carmarket_idempotency_start(
        p_account text, p_key text, p_fingerprint text, p_token text, p_ttl_ms bigint, p_lease_ms bigint, p_limit integer
      ) RETURNS TABLE (o_state text, o_parts text, o_charged boolean[], o_balances bigint[])
      LANGUAGE plpgsql AS $$
      DECLARE
        v_now timestamptz := clock_timestamp();
        u carmarket_idempotency%ROWTYPE;
        v_found boolean;
      BEGIN
        PERFORM set_config('synchronous_commit', 'off', true);
        -- The account's row first, as debits take it: the two never wait for each other in turn.
        PERFORM FROM carmarket_accounts WHERE id = p_account FOR NO KEY UPDATE;
        IF NOT FOUND THEN
          RAISE EXCEPTION 'no account %', p_account;
        END IF;
        SELECT * INTO u FROM carmarket_idempotency i WHERE i.account_id = p_account AND i.key = p_key;
        v_found := FOUND;
        IF v_found AND u.created + p_ttl_ms * interval '1 millisecond' > v_now THEN
          IF u.parts IS NOT NULL THEN
            IF u.fingerprint = p_fingerprint THEN
              RETURN QUERY SELECT 'done'::text, u.parts, u.charged, u.balances;
            ELSE
              RETURN QUERY SELECT 'reused'::text, NULL::text, NULL::boolean[], NULL::bigint[];
            END IF;
            RETURN;
          END IF;
          IF u.lease_until > v_now THEN
            RETURN QUERY SELECT CASE WHEN u.fingerprint = p_fingerprint THEN 'in_flight' ELSE 'reused' END,
              NULL::text, NULL::boolean[], NULL::bigint[];
            RETURN;
          END IF;
          -- Held by a call whose process died: taken over.
          UPDATE carmarket_idempotency
             SET fingerprint = p_fingerprint, token = p_token, lease_until = v_now + p_lease_ms * interval '1 millisecond'
           WHERE account_id = p_account AND key = p_key;
        ELSE
          IF v_found THEN
            PERFORM carmarket_idempotency_drop(p_account, p_key);
          END IF;
          PERFORM carmarket_idempotency_insert(p_account, p_key, p_fingerprint, v_now, p_token,
            v_now + p_lease_ms * interval '1 millisecond', NULL, NULL, NULL, p_limit);
        END IF;
        RETURN QUERY SELECT 'started'::text, NULL::text, NULL::boolean[], NULL::bigint[];
      END $$;

      -- Lets go of a key held by p_token whose call failed.
      CREATE FUNCTION carmarket_idempotency_abandon(p_account text, p_key text, p_token text) RETURNS void
      LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM set_config('synchronous_commit', 'off', true);
        PERFORM FROM carmarket_accounts WHERE id = p_account FOR NO KEY UPDATE;
        IF EXISTS (SELECT FROM carmarket_idempotency i
                    WHERE i.account_id = p_account AND i.key = p_key AND i.token = p_token AND i.parts IS NULL) THEN
          PERFORM carmarket_idempotency_drop(p_account, p_key);
        END IF;
      END $$;

      -- Forgets keys first used more than p_ttl_ms ago (by the server's clock, as their
      -- liveness is judged), at most p_limit of them: a sweep runs it until it returns less.
      -- The accounts are locked first, in the order debits lock them (by id, byte order), so a
      -- sweep and the calls it meets wait for each other in turn, never in a circle.
      CREATE FUNCTION carmarket_idempotency_sweep(p_ttl_ms bigint, p_limit integer) RETURNS integer
      LANGUAGE plpgsql AS $$
      DECLARE
        v_cutoff timestamptz := clock_timestamp() - p_ttl_ms * interval '1 millisecond';
        v_account text;
        v_gone integer;
        v_left integer := p_limit;
      BEGIN
        FOR v_account IN
          SELECT i.account_id FROM carmarket_idempotency i WHERE i.created <= v_cutoff
           GROUP BY i.account_id ORDER BY i.account_id COLLATE "C"
        LOOP
          EXIT WHEN v_left <= 0;
          PERFORM FROM carmarket_accounts WHERE id = v_account FOR NO KEY UPDATE;
          WITH gone AS (
            DELETE FROM carmarket_idempotency i
             WHERE i.account_id = v_account AND i.key IN (
               SELECT o.key FROM carmarket_idempotency o
                WHERE o.account_id = v_account AND o.created <= v_cutoff LIMIT v_left)
            RETURNING 1
          )
          SELECT count(*) INTO v_gone FROM gone;
          UPDATE carmarket_accounts SET idempotency_count = idempotency_count - v_gone WHERE id = v_account;
          v_left := v_left - v_gone;
        END LOOP;
        RETURN p_limit - v_left;
      END $$;

      -- What a batch of requests charges, in one transaction. Each request (a group) is one
      -- account's: its debits in order, each charged if the balance left covers it, a cheaper
      -- one after a refused one still charged; its failed calls recorded; and, with an
      -- Idempotency-Key, its answer stored when anything was charged (the key let go when
      -- nothing was), unless the key was answered first (replayed, or reused by another
      -- request), which charges nothing. Groups come sorted by account, so that concurrent
      -- batches lock accounts in the same order. One row per group: its outcome, the
      -- balance after it, and each debit's outcome, entry seq and time (null when refused).
      -- The batch holds the lock on its id, as carmarket_charge_batch_v2.
      CREATE FUNCTION carmarket_charge_batch_v3(
        p_batch uuid,
        p_accounts text[], p_wanted boolean[], p_keys text[], p_fingerprints text[], p_tokens text[], p_parts text[],
        p_debit_groups integer[], p_costs bigint[],
        p_endpoints text[], p_makes text[], p_models text[], p_years double precision[],
        p_failure_groups integer[], p_failure_endpoints text[], p_failure_makes text[], p_failure_models text[],
        p_failure_years double precision[], p_failure_codes text[],
        p_failures_per_day integer, p_ttl_ms bigint, p_limit integer
      ) RETURNS TABLE (
        o_outcome text, o_balance bigint, o_charged boolean[], o_balances bigint[], o_seqs integer[],
        o_times timestamptz[], o_parts text
      )
      LANGUAGE plpgsql AS $$
      DECLARE
        g integer;
        d integer := 1;
        e integer;
        f integer := 1;
        n_debits integer := coalesce(array_length(p_costs, 1), 0);
        n_failures integer := coalesce(array_length(p_failure_codes, 1), 0);
        found_status text;
        u carmarket_idempotency%ROWTYPE;
        u_found boolean;
        u_live boolean;
        v_balance bigint;
        v_seq integer;
        v_time timestamptz;
        v_now timestamptz;
      BEGIN
        PERFORM pg_advisory_xact_lock(hashtextextended(p_batch::text, 0));
        IF EXISTS (SELECT FROM carmarket_void_batches v WHERE v.batch = p_batch) THEN
          RAISE EXCEPTION 'batch % is void: its sender found it not committed', p_batch;
        END IF;
        FOR g IN 1 .. coalesce(array_length(p_accounts, 1), 0) LOOP
          o_outcome := NULL;
          o_charged := '{}';
          o_balances := '{}';
          o_seqs := '{}';
          o_times := '{}';
          o_parts := NULL;
          v_now := clock_timestamp();
          SELECT a.status, a.balance INTO found_status, o_balance
            FROM carmarket_accounts a WHERE a.id = p_accounts[g] FOR NO KEY UPDATE;
          IF NOT FOUND THEN
            o_outcome := 'unknown_account';
            o_balance := 0;
          ELSIF found_status <> 'active' THEN
            o_outcome := 'disabled';
          ELSE
            u_found := false;
            u_live := false;
            IF p_keys[g] IS NOT NULL THEN
              SELECT * INTO u FROM carmarket_idempotency i WHERE i.account_id = p_accounts[g] AND i.key = p_keys[g];
              u_found := FOUND;
              u_live := u_found AND u.created + p_ttl_ms * interval '1 millisecond' > v_now;
              IF u_live AND u.parts IS NOT NULL THEN
                IF u.fingerprint = p_fingerprints[g] THEN
                  o_outcome := 'replayed';
                  o_parts := u.parts;
                  o_charged := u.charged;
                  o_balances := u.balances;
                ELSE
                  o_outcome := 'reused';
                END IF;
              END IF;
            END IF;
            -- A group not wanted any more is charged nothing; one that could pay for nothing is
            -- refused for that, wanted or not.
            IF o_outcome IS NULL AND NOT p_wanted[g] THEN
              e := d;
              WHILE e <= n_debits AND p_debit_groups[e] = g LOOP
                IF p_costs[e] <= o_balance THEN
                  o_outcome := 'not_wanted';
                END IF;
                e := e + 1;
              END LOOP;
            END IF;
            IF o_outcome IS NULL THEN
              o_outcome := 'ok';
              WHILE d <= n_debits AND p_debit_groups[d] = g LOOP
                UPDATE carmarket_accounts a
                   SET balance = a.balance - p_costs[d], used = a.used + p_costs[d], entries = a.entries + 1
                 WHERE a.id = p_accounts[g] AND a.balance >= p_costs[d]
                RETURNING a.balance, a.entries - 1 INTO v_balance, v_seq;
                IF FOUND THEN
                  v_time := clock_timestamp();
                  INSERT INTO carmarket_entries (account_id, seq, id, time, type, credits, balance_after, endpoint, make, model, year, status, reference, count, batch, batch_group)
                  VALUES (p_accounts[g], v_seq, p_accounts[g] || '-' || v_seq, v_time, 'charge', -p_costs[d], v_balance,
                          p_endpoints[d], p_makes[d], p_models[d], p_years[d], 'success', NULL, 1, p_batch, g);
                  o_balance := v_balance;
                  o_charged := o_charged || true;
                  o_seqs := o_seqs || v_seq;
                  o_times := o_times || v_time;
                ELSE
                  o_charged := o_charged || false;
                  o_seqs := o_seqs || NULL::integer;
                  o_times := o_times || NULL::timestamptz;
                END IF;
                o_balances := o_balances || o_balance;
                d := d + 1;
              END LOOP;
              WHILE f <= n_failures AND p_failure_groups[f] = g LOOP
                PERFORM carmarket_record_failure(p_accounts[g], p_failure_endpoints[f], p_failure_makes[f],
                  p_failure_models[f], p_failure_years[f], p_failure_codes[f], p_failures_per_day);
                f := f + 1;
              END LOOP;
              IF p_keys[g] IS NOT NULL THEN
                IF true = ANY (o_charged) THEN
                  IF u_live THEN
                    UPDATE carmarket_idempotency
                       SET fingerprint = p_fingerprints[g], token = NULL, lease_until = NULL,
                           parts = p_parts[g], charged = o_charged, balances = o_balances
                     WHERE account_id = p_accounts[g] AND key = p_keys[g];
                  ELSE
                    IF u_found THEN
                      PERFORM carmarket_idempotency_drop(p_accounts[g], p_keys[g]);
                    END IF;
                    PERFORM carmarket_idempotency_insert(p_accounts[g], p_keys[g], p_fingerprints[g], v_now, NULL, NULL,
                      p_parts[g], o_charged, o_balances, p_limit);
                  END IF;
                ELSIF u_live AND u.token = p_tokens[g] THEN
                  -- Nothing charged, nothing kept: a retry runs again.
                  PERFORM carmarket_idempotency_drop(p_accounts[g], p_keys[g]);
                END IF;
              END IF;
            END IF;
          END IF;
          -- The debits and failures of a group that charged nothing are passed over.
          WHILE d <= n_debits AND p_debit_groups[d] = g LOOP
            d := d + 1;
          END LOOP;
          WHILE f <= n_failures AND p_failure_groups[f] = g LOOP
            f := f + 1;
          END LOOP;
          RETURN NEXT;
        END LOOP;
      END $$;
    `,
  },
  {
    version: 4,
    sql: `
      -- The mail queue (MailQueue in types.ts): a message waits here until sent, when it is
      -- deleted (it may hold a key), or given up, when its subject and text are dropped.
      CREATE TABLE carmarket_mail (
        id text PRIMARY KEY,
        kind text NOT NULL CHECK (kind IN ('code', 'key', 'notice', 'receipt')),
        to_address text NOT NULL,
        subject text,
        body text,
        state text NOT NULL CHECK (state IN ('queued', 'failed')),
        queued timestamptz NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        give_up_at timestamptz NOT NULL,
        -- When it is due (queued), or when it was given up (failed).
        next timestamptz NOT NULL,
        owner text,
        lease_until timestamptz,
        last_error text
      );
      CREATE INDEX carmarket_mail_due ON carmarket_mail (next) WHERE state = 'queued';

      -- Payments (Payments in types.ts): one row per Checkout Session paid, written in the
      -- transaction of its grant entry, so a session is granted once whatever is told twice.
      CREATE TABLE carmarket_payments (
        session_id text PRIMARY KEY,
        payment_intent text UNIQUE,
        account_id text NOT NULL REFERENCES carmarket_accounts (id),
        credits bigint NOT NULL CHECK (credits > 0),
        amount bigint NOT NULL,
        currency text NOT NULL,
        granted_at timestamptz NOT NULL,
        refunded bigint NOT NULL DEFAULT 0,
        disputed bigint NOT NULL DEFAULT 0,
        reversed bigint NOT NULL DEFAULT 0,
        unrecovered bigint NOT NULL DEFAULT 0
      );
      CREATE INDEX carmarket_payments_granted ON carmarket_payments (granted_at);
      -- Refund and dispute totals told before their payment was granted: taken back with the grant.
      CREATE TABLE carmarket_pending_reversals (
        payment_intent text PRIMARY KEY,
        refunded bigint NOT NULL,
        disputed bigint NOT NULL
      );

      -- Sign-in sessions of the account page (Sessions in types.ts): a token's hash, never the token.
      CREATE TABLE carmarket_sessions (
        token_hash text PRIMARY KEY,
        account_id text NOT NULL REFERENCES carmarket_accounts (id),
        expires timestamptz NOT NULL
      );
      CREATE INDEX carmarket_sessions_expires ON carmarket_sessions (expires);

      -- Credits taken back from a payment refunded or disputed.
      -- NOT VALID: the rows there are checked by version 5, in a transaction of its own that
      -- takes no lock a charge waits for (this one holds its exclusive lock only an instant).
      ALTER TABLE carmarket_entries DROP CONSTRAINT carmarket_entries_type_check;
      ALTER TABLE carmarket_entries ADD CONSTRAINT carmarket_entries_type_check
        CHECK (type IN ('signup_bonus', 'grant', 'charge', 'failed_call', 'reversal')) NOT VALID;
    `,
  },
  {
    version: 5,
    sql: `ALTER TABLE carmarket_entries VALIDATE CONSTRAINT carmarket_entries_type_check;`,
  },
]

/** The schema version this code reads and writes. */
export const SCHEMA_VERSION = MIGRATIONS.at(-1)!.version

const MIGRATE_HINT = 'run carmarket ledger migrate --ledger URL'

/** What a migrate did: the version it found, and the version the database is at now (the same when it was current). */
export interface Migrated {
  readonly from: number
  readonly to: number
}

/** Brings the database at `url` to SCHEMA_VERSION, creating the ledger in an empty database. */
export async function migrate(url: string): Promise<Migrated> {
  const calls = new PgHealth(`the ledger at ${shownUrl(url)}`)
  // Migrations may wait for each other's lock and take long on a large ledger: no statement timeout.
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: 5_000,
    application_name: 'carmarket migrate',
  })
  client.on('error', (error) => calls.failed(error.message))
  await calls.write(() => client.connect())
  try {
    // Held by the session, so released however the migrate ends, with its connection at the latest.
    await calls.write(() => client.query(`SELECT pg_advisory_lock(hashtext('carmarket_schema'))`))
    const found: number[] = []
    for (const migration of MIGRATIONS) found.push(await calls.write(() => apply(client, url, migration)))
    return { from: found[0]!, to: SCHEMA_VERSION }
  } finally {
    await client.end()
  }
}

/** Applies `migration` unless the database has it already; resolves to the version the database was at. */
async function apply(client: pg.Client, url: string, migration: Migration): Promise<number> {
  await client.query('BEGIN')
  try {
    await client.query(`
      CREATE TABLE IF NOT EXISTS carmarket_schema (
        only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
        version integer NOT NULL
      );
      INSERT INTO carmarket_schema (version) VALUES (0) ON CONFLICT DO NOTHING;
    `)
    const found = versionOf(await client.query<Row>('SELECT version FROM carmarket_schema'))
    if (found > SCHEMA_VERSION) throw newerSchema(url, found)
    if (found < migration.version) {
      await client.query(migration.sql)
      await client.query('UPDATE carmarket_schema SET version = $1', [migration.version])
    }
    await client.query('COMMIT')
    return found
  } catch (error) {
    // A rollback that fails has lost its connection, and the transaction with it.
    await client.query('ROLLBACK').catch(() => undefined)
    throw error
  }
}

/**
 * Refuses a database that is not at SCHEMA_VERSION: without a ledger, at an older
 * version (to be migrated first) or at a newer one (written by newer code).
 */
export async function requireSchema(pool: pg.Pool, url: string): Promise<void> {
  const present = await pool.query<Row>(`SELECT to_regclass('carmarket_schema') IS NOT NULL AS present`)
  if (present.rows[0]?.present !== true)
    throw new LedgerError('schema', `the database at ${shownUrl(url)} holds no carmarket ledger: ${MIGRATE_HINT}`)
  const found = versionOf(await pool.query<Row>('SELECT version FROM carmarket_schema'))
  if (found > SCHEMA_VERSION) throw newerSchema(url, found)
  if (found < SCHEMA_VERSION) {
    throw new LedgerError(
      'schema',
      `the ledger at ${shownUrl(url)} is at schema version ${found}, older than this carmarket's ${SCHEMA_VERSION}: ${MIGRATE_HINT}`,
    )
  }
}

function versionOf(result: pg.QueryResult<Row>): number {
  const row = result.rows[0]
  return row === undefined ? 0 : whole(row, 'version')
}

function newerSchema(url: string, found: number): LedgerError {
  return new LedgerError(
    'schema',
    `the ledger at ${shownUrl(url)} is at schema version ${found}, newer than this carmarket's ${SCHEMA_VERSION}: run the carmarket that migrated it, or a newer one`,
  )
}

/**
 * A pool to the database at `url` for one engine (`what`, for messages: `the ledger`),
 * with the health its calls are watched by, once the database is found at this code's
 * schema; refused (LedgerError `schema`), and the pool closed, otherwise.
 */
export async function openMigrated(
  url: string,
  what: string,
  settings: Omit<PoolSettings, 'onIdleError'>,
): Promise<{ readonly pool: pg.Pool; readonly calls: PgHealth }> {
  const calls = new PgHealth(`${what} at ${shownUrl(url)}`)
  const pool = openPool(url, { ...settings, onIdleError: (error) => calls.failed(error.message) })
  try {
    await calls.read(() => requireSchema(pool, url))
  } catch (error) {
    await pool.end()
    throw error
  }
  return { pool, calls }
}
