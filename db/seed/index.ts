export { applySeedPacks, seedPack, seedPacks, resolveSeedPacks, UnknownSeedPackError, type SeedReport } from './seed';
export { SEED_PACKS, findSeedPack, seedPackNames } from './packs';
export { packConfigRows, mergeConfigRows, SeedConflictError } from './merge';
export type { SeedPack, BusinessTable } from './types';
export { packRowUpgradeLines, type PackRowUpgrade } from './upgrade';
export { restoreEarlierPackRows, restoreLines, type EarlierRowsRestore } from './restore-earlier';
