export * from './bounded-table.js';
export * from './job-id.js';
export * from './tag-interceptor.js';
export * from './usage.js';
