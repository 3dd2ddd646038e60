// Original file: proto/stripefs/v1/stripefs.proto


export interface OstState {
  'up'?: (boolean);
  'in'?: (boolean);
}

export interface OstState__Output {
  'up': (boolean);
  'in': (boolean);
}
