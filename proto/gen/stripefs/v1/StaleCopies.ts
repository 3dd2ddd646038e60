// Original file: proto/stripefs/v1/stripefs.proto


export interface StaleCopies {
  'ostId'?: (number);
  'objectIds'?: (string)[];
}

export interface StaleCopies__Output {
  'ostId': (number);
  'objectIds': (string)[];
}
