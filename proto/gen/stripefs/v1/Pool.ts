// Original file: proto/stripefs/v1/stripefs.proto

import type { Rule as _stripefs_v1_Rule, Rule__Output as _stripefs_v1_Rule__Output } from '../../stripefs/v1/Rule.js';

export interface Pool {
  'id'?: (number);
  'name'?: (string);
  'pgCount'?: (number);
  'rule'?: (_stripefs_v1_Rule | null);
  'minSize'?: (number);
}

export interface Pool__Output {
  'id': (number);
  'name': (string);
  'pgCount': (number);
  'rule': (_stripefs_v1_Rule__Output | null);
  'minSize': (number);
}
