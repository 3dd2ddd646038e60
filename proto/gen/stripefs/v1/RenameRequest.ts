// Original file: proto/stripefs/v1/stripefs.proto


export interface RenameRequest {
  'fromPath'?: (string);
  'toPath'?: (string);
  'noReplace'?: (boolean);
}

export interface RenameRequest__Output {
  'fromPath': (string);
  'toPath': (string);
  'noReplace': (boolean);
}
