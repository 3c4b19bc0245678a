-- Prints what the HTTP benchmark reads of a wrk run, as one JSON line.
done = function(summary, latency, requests)
  local non2xx = summary.errors.status
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
  io.write(string.format(
    '{"requests_per_second":%.1f,"p50_ms":%.2f,"p90_ms":%.2f,"p99_ms":%.2f,"p999_ms":%.2f,"non2xx":%d,"errors":%d}\n',
    summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000, latency:percentile(99.9) / 1000,
    non2xx, errors))
end
