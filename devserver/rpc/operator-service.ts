/** OperatorService: search attribute administration. */
import { DevServerError, invalidArgument, notFound } from '../errors';
import type { Message } from '../proto/types';
import type { Engine } from '../engine/engine';
import { indexedValueType, searchAttributeTypeOf, SYSTEM_SEARCH_ATTRIBUTES } from '../engine/search-attributes';
import type { RpcHandler } from '../grpc/service';

function addSearchAttributes(engine: Engine, request: Message): Message {
  const requested = (request.searchAttributes ?? {}) as Record<string, number>;
  const registry = engine.searchAttributes;
  const additions: [string, ReturnType<typeof searchAttributeTypeOf>][] = [];
  for (const [name, indexed] of Object.entries(requested)) {
    if (registry.isSystem(name)) throw invalidArgument(`Search attribute ${name} is reserved by system.`);
    const type = searchAttributeTypeOf(indexed);
    if (!type) throw invalidArgument(`Unknown index value type for search attribute ${name}.`);
    const existing = registry.custom.get(name);
    if (existing && existing !== type) {
      throw new DevServerError('ALREADY_EXISTS', `Search attribute ${name} already exists with type ${existing}.`);
    }
    additions.push([name, type]);
  }
  engine.transact(() => {
    for (const [name, type] of additions) if (type) registry.custom.set(name, type);
    engine.store?.recordSearchAttributes(registry.custom);
  });
  return {};
}

function removeSearchAttributes(engine: Engine, request: Message): Message {
  const names = (request.searchAttributes ?? []) as string[];
  const registry = engine.searchAttributes;
  for (const name of names) {
    if (registry.isSystem(name)) throw invalidArgument(`Unable to remove non-custom search attribute ${name}.`);
    if (!registry.custom.has(name)) throw notFound(`Search attribute ${name} doesn't exist.`);
  }
  engine.transact(() => {
    for (const name of names) registry.custom.delete(name);
    engine.store?.recordSearchAttributes(registry.custom);
  });
  return {};
}

function listSearchAttributes(engine: Engine): Message {
  const customAttributes: Record<string, number> = {};
  for (const [name, type] of engine.searchAttributes.custom) customAttributes[name] = indexedValueType(type);
  const systemAttributes: Record<string, number> = {};
  for (const [name, type] of Object.entries(SYSTEM_SEARCH_ATTRIBUTES)) systemAttributes[name] = indexedValueType(type);
  return { customAttributes, systemAttributes, storageSchema: {} };
}

export function operatorServiceHandlers(engine: Engine): Record<string, RpcHandler> {
  return {
    AddSearchAttributes: (request) => addSearchAttributes(engine, request),
    RemoveSearchAttributes: (request) => removeSearchAttributes(engine, request),
    ListSearchAttributes: () => listSearchAttributes(engine),
  };
}
