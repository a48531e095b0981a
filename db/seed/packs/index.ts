import type { SeedPack } from '../types';
import { faqPack } from './faq';
import { loanConfirmationPack } from './loan-confirmation';
import { moveConnectionsPack } from './move-connections';
import { orderDiagnosticsPack } from './order-diagnostics';
import { zapperSemanticPack } from './zapper-semantic';

/** Every bundled pack, in the order `seed all` applies them. */
export const SEED_PACKS: readonly SeedPack[] = [
  faqPack,
  moveConnectionsPack,
  loanConfirmationPack,
  orderDiagnosticsPack,
  zapperSemanticPack,
];

export function seedPackNames(): string[] {
  return SEED_PACKS.map((p) => p.name);
}

export function findSeedPack(name: string): SeedPack | undefined {
  return SEED_PACKS.find((p) => p.name === name);
}

export { faqPack, loanConfirmationPack, moveConnectionsPack, orderDiagnosticsPack, zapperSemanticPack };
