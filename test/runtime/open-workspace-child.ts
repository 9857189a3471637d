// Opens a runtime on argv[2] (state dir argv[3]) and prints how that ended as one JSON line; the
// test runs it as another user, for whom a directory can be unreadable (root reads every one).
import { StartupError } from '../../src/protocol/index.js';
import { createRuntime } from '../../src/runtime/index.js';

const [workspace = '', stateDir = ''] = process.argv.slice(2);
try {
  const rt = await createRuntime({ workspace, stateDir });
  await rt.close();
  console.log(JSON.stringify({ opened: true }));
} catch (e) {
  console.log(JSON.stringify(StartupError.isInstance(e) ? { startup: true, ...e.toBody() } : { startup: false, message: String(e) }));
}
