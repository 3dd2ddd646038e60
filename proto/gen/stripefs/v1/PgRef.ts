// Original file: proto/stripefs/v1/stripefs.proto


export interface PgRef {
  'poolId'?: (number);
  'pg'?: (number);
}

export interface PgRef__Output {
  'poolId': (number);
  'pg': (number);
}
