// oss.ostIds: the ids this OSS's OSTs ask the MDS for, so that which host holds ost0 does not
// depend on which OSS registered first (docker compose starts them in any order). An OST that
// already has an id in its folder must be given that same id: its objects are stored under it.
import { StripeError } from '../common/errors.js';

/** Largest OST id a configuration may ask for (the map's ids are 32-bit, negatives are buckets). */
export const OST_ID_MAX = 2_147_483_647;

/** The configured ids, one per OST in order, or undefined when none are configured. */
export function parseOstIds(raw: string, ostCount: number): number[] | undefined {
  if (raw.trim() === '') return undefined;
  const parts = raw.split(',').map((part) => part.trim());
  const bad = (why: string): never => {
    throw new StripeError(
      'CONFIG_INVALID',
      `config key oss.ostIds (env STRIPEFS_OSS_OST_IDS) ${JSON.stringify(raw)}: ${why}`,
      { key: 'oss.ostIds' },
    );
  };
  if (parts.length !== ostCount) bad(`expected ${ostCount} ids (one per OST, oss.osts), got ${parts.length}`);
  const ids = parts.map((part) =>
    /^\d{1,10}$/.test(part) && Number(part) <= OST_ID_MAX
      ? Number(part)
      : bad(`${part} is not an id 0..${OST_ID_MAX}`),
  );
  if (new Set(ids).size !== ids.length) bad('the ids must differ');
  return ids;
}

/** Refuses to start an OST whose folder already belongs to another id. */
export function checkPersistedIds(
  osts: { name: string; id: number | undefined }[],
  ids: number[] | undefined,
): void {
  if (!ids) return;
  osts.forEach((ost, index) => {
    if (ost.id !== undefined && ost.id !== ids[index])
      throw new StripeError(
        'CONFIG_INVALID',
        `${ost.name} holds the objects of ost${ost.id}, but oss.ostIds gives it id ${ids[index]}: configure ${ost.id} or give it an empty folder`,
        { key: 'oss.ostIds' },
      );
  });
}
