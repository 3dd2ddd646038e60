// Original file: proto/stripefs/v1/stripefs.proto

export const XattrSetMode = {
  XATTR_SET_MODE_UNSPECIFIED: 'XATTR_SET_MODE_UNSPECIFIED',
  XATTR_SET_MODE_CREATE: 'XATTR_SET_MODE_CREATE',
  XATTR_SET_MODE_REPLACE: 'XATTR_SET_MODE_REPLACE',
} as const;

export type XattrSetMode =
  | 'XATTR_SET_MODE_UNSPECIFIED'
  | 0
  | 'XATTR_SET_MODE_CREATE'
  | 1
  | 'XATTR_SET_MODE_REPLACE'
  | 2

export type XattrSetMode__Output = typeof XattrSetMode[keyof typeof XattrSetMode]
