// Original file: proto/stripefs/v1/stripefs.proto


export interface TicketKey {
  'id'?: (number);
  'key'?: (Buffer | Uint8Array | string);
}

export interface TicketKey__Output {
  'id': (number);
  'key': (Buffer);
}
