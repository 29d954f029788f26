// Creates an embedded database in an empty data directory (PGlite runs initdb) and exits. Run as
// a short-lived child process by embedded.ts so that initdb's memory (a second, temporary PGlite
// instance and its ~390 MB of WASM memory, and the native memory its compilation leaves in
// glibc's arenas) never belongs to the service's process. Plain JavaScript: no loaders needed.
import { PGlite } from '@electric-sql/pglite';

const [dataDir, startParams] = process.argv.slice(2);
const engine = await PGlite.create({
  dataDir,
  relaxedDurability: true,
  startParams: [...PGlite.defaultStartParams, ...JSON.parse(startParams)],
});
await engine.close();
