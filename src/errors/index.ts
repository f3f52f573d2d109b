export { EXIT, PropdataError } from './propdata-error.js';
export { UsageError } from './usage-error.js';
export { InputError } from './input-error.js';
