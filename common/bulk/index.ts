export * from './buffer-pool.js';
export * from './client.js';
export * from './crc-combine.js';
export * from './frame.js';
export * from './hello.js';
export * from './socket-reader.js';
export * from './ticket-frame.js';
