// Original file: proto/stripefs/v1/stripefs.proto


export interface RuleStep {
  'type'?: (string);
  'count'?: (number);
}

export interface RuleStep__Output {
  'type': (string);
  'count': (number);
}
