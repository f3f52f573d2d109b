/**
 * propdata as a library: `import { createClient, startSandbox } from 'propdata'`. The CLI runs on
 * the same engine (src/engine/); workbooks are behind `propdata/xlsx`.
 */
export { createClient } from './create-client.js';
export { CLIENT_DEFAULTS, type BatchOptions, type CallOptions, type ClientOptions } from './client-options.js';
export type { Call, Client, EndpointCall, ItemFor, Items, LevelCalls, MgetCall, MgetComponent, MgetItem } from './client-types.js';
export type { BatchRecord, BatchRun } from './batch-run.js';
export type { ServiceAnswer } from '../model/record.js';
export type { RunEvent } from './run-events.js';
export type { Logger } from './library-log.js';
export type { RunSummary } from '../pipeline/summary.js';
export type { Status } from '../model/status.js';
export { startSandbox, type Sandbox, type SandboxSettings } from './start-sandbox.js';
export type { RateWindow } from '../sandbox/index.js';
export { readRows, openRecordFile, type ReadOptions, type RecordFile, type WriteOptions } from './record-files.js';
// The result, item and parameter types, and the catalog's named values (LienType...): generated from the catalog.
export type * from './result-types.js';
// Every error class, PropdataError the base of all and ServiceError of the service's answers (status, headers, requestId).
export * from '../errors/index.js';
