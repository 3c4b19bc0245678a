import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import t from 'tap'
import { request } from 'undici'
import { build, rows, serve, toCsv } from './support.js'

t.test('pages, llms.txt, the OpenAPI document and the scripts are sent compressed to whoever takes it', async (t) => {
  const { snapshots } = await build(t, toCsv(rows(12, (i) => ({ year: 2017, price: 30_000 + i }))))
  const { base } = await serve(t, { snapshots })
  const script = /src="(\/assets\/[^"]+\.js)"/.exec(await (await request(`${base}/register`)).body.text())![1]!
  for (const path of ['/', '/docs', '/register', '/llms.txt', '/v1/openapi.json', script]) {
    const plain = await request(`${base}${path}`)
    const text = await plain.body.text()
    t.equal(plain.headers['content-encoding'], undefined, `${path}: as it is to a client that asks for nothing`)
    t.equal(plain.headers.vary, 'Accept-Encoding', `${path}: caches are told it varies`)
    for (const [accept, encoding, decode] of [
      ['gzip, deflate, br', 'br', brotliDecompressSync],
      ['gzip', 'gzip', gunzipSync],
      ['br;q=0, gzip;q=0.5', 'gzip', gunzipSync],
    ] as const) {
      const answer = await request(`${base}${path}`, { headers: { 'accept-encoding': accept } })
      const bytes = Buffer.from(await answer.body.arrayBuffer())
      t.equal(answer.headers['content-encoding'], encoding, `${path}, ${accept}: ${encoding}`)
      t.equal(decode(bytes).toString(), text, `${path}, ${encoding}: the same body`)
      t.ok(
        bytes.length < Buffer.byteLength(text),
        `${path}, ${encoding}: smaller (${bytes.length} of ${Buffer.byteLength(text)} bytes)`,
      )
      const etag = String(answer.headers.etag)
      t.not(etag, plain.headers.etag, `${path}, ${encoding}: its own ETag`)
      const again = await request(`${base}${path}`, { headers: { 'accept-encoding': accept, 'if-none-match': etag } })
      t.equal(again.statusCode, 304, `${path}, ${encoding}: revalidated`)
      await again.body.dump()
    }
    const refused = await request(`${base}${path}`, { headers: { 'accept-encoding': 'identity, br;q=0, gzip;q=0' } })
    t.equal(refused.headers['content-encoding'], undefined, `${path}: a client that takes neither gets it as it is`)
    await refused.body.dump()
  }
})
