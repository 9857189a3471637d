// Stages a file, moves a tree aside and starts an artifact part the way the tools do, then dies
// by SIGKILL before finishing any of them: the leftovers of a real crash.
import { closeSync, mkdirSync, openSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { ArtifactStore } from '../../src/artifacts/index.js';
import { stageFile, tempName } from '../../src/resources/index.js';

const [workspace, artifacts] = process.argv.slice(2) as [string, string];
const dir = openSync(join(workspace, 'sub'), 'r');
stageFile(dir, { data: Buffer.from('half-written secret of a crashed call\n'), mode: 0o644 });
closeSync(dir);
mkdirSync(join(workspace, 'tree/inner'), { recursive: true });
renameSync(join(workspace, 'tree'), join(workspace, tempName('del')));
new ArtifactStore(artifacts).writer('text/plain', 'stdout').write(Buffer.from('partial output'));
process.kill(process.pid, 'SIGKILL');
