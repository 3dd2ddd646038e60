// Original file: proto/stripefs/v1/stripefs.proto

export const RecoverMode = {
  RECOVER_MODE_UNSPECIFIED: 'RECOVER_MODE_UNSPECIFIED',
  RECOVER_MODE_ABSENT: 'RECOVER_MODE_ABSENT',
  RECOVER_MODE_ABSENT_OR_SIZE: 'RECOVER_MODE_ABSENT_OR_SIZE',
  RECOVER_MODE_ALL: 'RECOVER_MODE_ALL',
} as const;

export type RecoverMode =
  | 'RECOVER_MODE_UNSPECIFIED'
  | 0
  | 'RECOVER_MODE_ABSENT'
  | 1
  | 'RECOVER_MODE_ABSENT_OR_SIZE'
  | 2
  | 'RECOVER_MODE_ALL'
  | 3

export type RecoverMode__Output = typeof RecoverMode[keyof typeof RecoverMode]
