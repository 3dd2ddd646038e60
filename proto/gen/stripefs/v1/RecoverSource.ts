// Original file: proto/stripefs/v1/stripefs.proto


export interface RecoverSource {
  'ostId'?: (number);
  'grpcAddress'?: (string);
  'bulkAddress'?: (string);
  'position'?: (number);
  'inPlacement'?: (boolean);
}

export interface RecoverSource__Output {
  'ostId': (number);
  'grpcAddress': (string);
  'bulkAddress': (string);
  'position': (number);
  'inPlacement': (boolean);
}
