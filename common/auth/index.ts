export * from './caps.js';
export * from './cidr.js';
export * from './keyring.js';
export * from './proof.js';
export * from './scratch.js';
export * from './signing.js';
export * from './ticket.js';
