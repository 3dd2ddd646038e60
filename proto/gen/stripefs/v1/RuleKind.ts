// Original file: proto/stripefs/v1/stripefs.proto

export const RuleKind = {
  RULE_KIND_UNSPECIFIED: 'RULE_KIND_UNSPECIFIED',
  RULE_KIND_REPLICATED: 'RULE_KIND_REPLICATED',
  RULE_KIND_ERASURE: 'RULE_KIND_ERASURE',
} as const;

export type RuleKind =
  | 'RULE_KIND_UNSPECIFIED'
  | 0
  | 'RULE_KIND_REPLICATED'
  | 1
  | 'RULE_KIND_ERASURE'
  | 2

export type RuleKind__Output = typeof RuleKind[keyof typeof RuleKind]
