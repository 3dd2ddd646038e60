// Original file: proto/stripefs/v1/stripefs.proto


export interface AdminKey {
  'name'?: (string);
  'storedKey'?: (Buffer | Uint8Array | string);
  'allow'?: (string)[];
}

export interface AdminKey__Output {
  'name': (string);
  'storedKey': (Buffer);
  'allow': (string)[];
}
