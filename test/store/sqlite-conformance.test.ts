// The SQLite store passes the store conformance suite (test/store/conformance).
import { describeStoreConformance } from './conformance/index.js';
import { sqliteBackend } from './sqlite-backend.js';

describeStoreConformance('sqlite', sqliteBackend);
