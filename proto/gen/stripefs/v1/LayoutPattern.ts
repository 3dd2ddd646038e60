// Original file: proto/stripefs/v1/stripefs.proto

export const LayoutPattern = {
  LAYOUT_PATTERN_UNSPECIFIED: 'LAYOUT_PATTERN_UNSPECIFIED',
  LAYOUT_PATTERN_RAID0: 'LAYOUT_PATTERN_RAID0',
  LAYOUT_PATTERN_REPLICATED: 'LAYOUT_PATTERN_REPLICATED',
  LAYOUT_PATTERN_EC: 'LAYOUT_PATTERN_EC',
} as const;

export type LayoutPattern =
  | 'LAYOUT_PATTERN_UNSPECIFIED'
  | 0
  | 'LAYOUT_PATTERN_RAID0'
  | 1
  | 'LAYOUT_PATTERN_REPLICATED'
  | 2
  | 'LAYOUT_PATTERN_EC'
  | 3

export type LayoutPattern__Output = typeof LayoutPattern[keyof typeof LayoutPattern]
