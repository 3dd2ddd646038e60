// Original file: proto/stripefs/v1/stripefs.proto


export interface SymlinkRequest {
  'target'?: (string);
  'path'?: (string);
  'uid'?: (number);
  'gid'?: (number);
}

export interface SymlinkRequest__Output {
  'target': (string);
  'path': (string);
  'uid': (number);
  'gid': (number);
}
