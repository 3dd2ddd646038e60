// Public face of the OSS.
export { type BuiltOss, buildOss, type OssDeps } from './build.js';
export { type FaultKnobs, parseFaultKnobs } from './faults.js';
export { validateObjectId } from './object-id.js';
