// Issue 21, fault injection: every tool through every failpoint. A child runtime makes one keyed
// call with TOOLGATE_FAILPOINT armed and is SIGKILLed at that stage boundary (src/protocol/failpoint.ts);
// then a runtime in this process opens the same state dir, runs reconcile, retries the same call
// (same idempotency key) and asks it again. Judged per case: the effect happened at most once (no
// duplicate line or marker, no second write of a file already written), a receipt answers the key
// (and it is the one committed before the crash, if any), an effect already visible at the crash
// is answered by a replay, a reconciled receipt or reconciliation_required (never run again as if
// new), the workspace is exactly its pre-image or post-image, and the audit chain verifies.
import { FIRST_CASES } from './failpoint-cases.js';
import { matrixTests } from './failpoint-matrix.js';

matrixTests('failpoint matrix: workspace tools, shell.exec, http.request', FIRST_CASES);
