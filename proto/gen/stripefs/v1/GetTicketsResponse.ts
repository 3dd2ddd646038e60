// Original file: proto/stripefs/v1/stripefs.proto


export interface GetTicketsResponse {
  'tickets'?: (string)[];
}

export interface GetTicketsResponse__Output {
  'tickets': (string)[];
}
