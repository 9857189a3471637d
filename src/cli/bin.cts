#!/usr/bin/env node
// The `toolgate` command. It sizes libuv's thread pool before anything starts it, then runs
// main.js. The pool does the asynchronous file work: fs.patch syncs its staged files and then
// their directories there, all at once, and with the default 4 threads 20 files' fsyncs went
// 4 at a time (bench/patch: the directory syncs 1.28-1.38 ms with 4 threads, 0.81-0.89 ms with
// 16, docs/operating.md#thread-pool). It is CommonJS because an ES module entry is read by the
// module loader through that pool, which then already runs with its default size; a size the
// user set is kept.
if (process.env['UV_THREADPOOL_SIZE'] === undefined) process.env['UV_THREADPOOL_SIZE'] = '16';
void import('./main.js');
