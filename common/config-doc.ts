// The configuration reference as Markdown rows, generated from the schema so
// docs/configuration.md cannot drift (a test compares them).
import { CONFIG_SCHEMA, type ConfigKey, envNameOf } from './config.js';

export function configDocRows(): string[] {
  return (Object.keys(CONFIG_SCHEMA) as ConfigKey[]).map((key) => {
    const spec = CONFIG_SCHEMA[key];
    const fallback = spec.default === '' ? '(none)' : `\`${String(spec.default)}\``;
    return `| \`${key}\` | \`${envNameOf(key)}\` | ${fallback} | ${spec.doc} |`;
  });
}
