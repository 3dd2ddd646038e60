// Original file: proto/stripefs/v1/stripefs.proto

import type { LayoutPattern as _stripefs_v1_LayoutPattern, LayoutPattern__Output as _stripefs_v1_LayoutPattern__Output } from '../../stripefs/v1/LayoutPattern.js';

export interface Layout {
  'pattern'?: (_stripefs_v1_LayoutPattern);
  'stripeSize'?: (number);
  'stripeCount'?: (number);
  'replicas'?: (number);
  'k'?: (number);
  'm'?: (number);
  'failureDomain'?: (string);
  'poolId'?: (number);
  'domBytes'?: (number);
}

export interface Layout__Output {
  'pattern': (_stripefs_v1_LayoutPattern__Output);
  'stripeSize': (number);
  'stripeCount': (number);
  'replicas': (number);
  'k': (number);
  'm': (number);
  'failureDomain': (string);
  'poolId': (number);
  'domBytes': (number);
}
