/**
 * wrk as the load generator, when it is installed (Debian's `wrk`). autocannon runs in Node and
 * takes most of a core at these rates; on a 2-core machine that core is taken from the service,
 * PostgreSQL and Redis, which a bare handler alone never needs. wrk (C, LuaJIT) costs a fraction
 * of it. BENCH_LOAD=autocannon|wrk picks one; the default is wrk when found, else autocannon.
 *
 * The Lua script tallies every reply as `countReply` does (non-2xx by error code; a batch's calls by
 * status), per wrk thread, and `done` prints one JSON line with the totals and the percentiles.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ReplyCounts } from './http';

export type LoadGenerator = 'wrk' | 'autocannon';

function wrkInstalled(): boolean {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (err) {
    // `wrk --version` prints its usage and exits 1: installed.
    return (err as { status?: number }).status === 1;
  }
}

export const LOAD_GENERATOR: LoadGenerator = (() => {
  const asked = process.env.BENCH_LOAD;
  if (asked === 'autocannon') return 'autocannon';
  if (asked === 'wrk') {
    if (!wrkInstalled()) throw new Error('BENCH_LOAD=wrk but wrk is not installed (apt-get install wrk)');
    return 'wrk';
  }
  return wrkInstalled() ? 'wrk' : 'autocannon';
})();

export interface WrkRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  connections: number;
  durationS: number;
  /** A batch's replies: their calls are counted by status (only then is a 2xx reply's body read). */
  batch: boolean;
}

export interface WrkResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  /** Replies outside 2xx, plus socket errors and timeouts. */
  non2xx: number;
  counts: ReplyCounts;
}

const luaString = (s: string) => JSON.stringify(s).replace(/\\u([0-9a-f]{4})/g, (_, h: string) => `\\u{${h}}`);

function script(req: WrkRequest): string {
  const headers = Object.entries(req.headers)
    .map(([k, v]) => `wrk.headers[${luaString(k)}] = ${luaString(v)}`)
    .join('\n');
  return `
wrk.method = ${luaString(req.method)}
${req.body !== undefined ? `wrk.body = ${luaString(req.body)}` : ''}
${headers}
local batch = ${req.batch ? 'true' : 'false'}
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) non2xx = 0; success = 0; failed = 0; errors = {} end
local function tally(code) errors[code] = (errors[code] or 0) + 1 end
function response(status, headers, body)
  if status < 200 or status > 299 then
    non2xx = non2xx + 1
    tally((body and string.match(body, '"error":"([a-z_]+)"')) or ('http_' .. status))
    return
  end
  if not batch or body == nil then return end
  for _ in string.gmatch(body, '"status":"success"') do success = success + 1 end
  local f = 0
  for _ in string.gmatch(body, '"status":"failed"') do f = f + 1 end
  if f > 0 then
    failed = failed + f
    for code in string.gmatch(body, '"code":"([a-z_]+)"') do tally(code) end
  end
end
function done(summary, latency, requests)
  local n, s, f, errs = 0, 0, 0, {}
  for _, t in ipairs(threads) do
    n = n + (t:get("non2xx") or 0); s = s + (t:get("success") or 0); f = f + (t:get("failed") or 0)
    local e = t:get("errors") or {}
    for k, v in pairs(e) do errs[k] = (errs[k] or 0) + v end
  end
  local parts = {}
  for k, v in pairs(errs) do table.insert(parts, string.format('%q:%d', k, v)) end
  local e = summary.errors
  io.write(string.format('WRK {"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"non2xx":%d,"socket_errors":%d,"success":%d,"failed":%d,"errors":{%s}}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), n,
    e.connect + e.read + e.write + e.timeout, s, f, table.concat(parts, ',')))
end
`;
}

/** One wrk run (2 threads); the figures wrk's `done` reports. */
export async function runWrk(req: WrkRequest): Promise<WrkResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'amp-wrk-'));
  const file = path.join(dir, 'load.lua');
  writeFileSync(file, script(req));
  try {
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        'wrk',
        ['-t2', `-c${req.connections}`, `-d${req.durationS}s`, '--timeout', '10s', '-s', file, req.url],
        { maxBuffer: 1 << 20 },
        (err, stdout, stderr) => (err ? reject(new Error(`wrk failed: ${stderr || err.message}`)) : resolve(stdout)),
      ),
    );
    const line = /^WRK (.*)$/m.exec(out)?.[1];
    if (!line) throw new Error(`wrk printed no result: ${out.slice(0, 300)}`);
    const r = JSON.parse(line) as {
      requests: number;
      duration_us: number;
      p50_us: number;
      p99_us: number;
      non2xx: number;
      socket_errors: number;
      success: number;
      failed: number;
      errors: Record<string, number>;
    };
    const ms = (us: number) => Math.round(us / 100) / 10;
    return {
      requests: r.requests,
      rps: r.requests / (r.duration_us / 1e6),
      p50: ms(r.p50_us),
      p99: ms(r.p99_us),
      non2xx: r.non2xx + r.socket_errors,
      counts: { success: r.success, failed: r.failed, errors: r.errors },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
