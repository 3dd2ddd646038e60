// Original file: proto/stripefs/v1/stripefs.proto

import type { RuleKind as _stripefs_v1_RuleKind, RuleKind__Output as _stripefs_v1_RuleKind__Output } from '../../stripefs/v1/RuleKind.js';
import type { RuleStep as _stripefs_v1_RuleStep, RuleStep__Output as _stripefs_v1_RuleStep__Output } from '../../stripefs/v1/RuleStep.js';

export interface Rule {
  'kind'?: (_stripefs_v1_RuleKind);
  'size'?: (number);
  'k'?: (number);
  'm'?: (number);
  'failureDomain'?: (string);
  'root'?: (string);
  'steps'?: (_stripefs_v1_RuleStep)[];
}

export interface Rule__Output {
  'kind': (_stripefs_v1_RuleKind__Output);
  'size': (number);
  'k': (number);
  'm': (number);
  'failureDomain': (string);
  'root': (string);
  'steps': (_stripefs_v1_RuleStep__Output)[];
}
