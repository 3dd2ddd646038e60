export { registerJobAdmin, registerJobMetrics } from './admin.js';
export { JobStats } from './job-stats.js';
export { observeCalls } from './observe.js';
export type { ClientView, JobView } from './views.js';
