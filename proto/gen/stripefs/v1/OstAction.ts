// Original file: proto/stripefs/v1/stripefs.proto

export const OstAction = {
  OST_ACTION_UNSPECIFIED: 'OST_ACTION_UNSPECIFIED',
  OST_ACTION_OUT: 'OST_ACTION_OUT',
  OST_ACTION_IN: 'OST_ACTION_IN',
  OST_ACTION_REWEIGHT: 'OST_ACTION_REWEIGHT',
} as const;

export type OstAction =
  | 'OST_ACTION_UNSPECIFIED'
  | 0
  | 'OST_ACTION_OUT'
  | 1
  | 'OST_ACTION_IN'
  | 2
  | 'OST_ACTION_REWEIGHT'
  | 3

export type OstAction__Output = typeof OstAction[keyof typeof OstAction]
