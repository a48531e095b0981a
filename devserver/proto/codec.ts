/**
 * Protobuf encoding on top of the protobufjs root shipped by `@temporalio/proto` (it carries the
 * service definitions, so no .proto files or proto-loader are needed).
 */
import { temporal } from '@temporalio/proto';
import type { Message } from './types';

interface ProtoType {
  fullName: string;
  fields: Record<string, unknown>;
  encode(message: object): { finish(): Uint8Array };
  decode(bytes: Uint8Array): object;
  toObject(message: object, options: { longs: NumberConstructor }): Record<string, unknown>;
}

interface ProtoMethod {
  name: string;
  resolve(): void;
  resolvedRequestType: ProtoType | null;
  resolvedResponseType: ProtoType | null;
}

interface ProtoService {
  fullName: string;
  methods: Record<string, ProtoMethod>;
}

interface ProtoRoot {
  lookupType(name: string): ProtoType;
  lookupService(name: string): ProtoService;
}

// The `temporal` namespace is a protobufjs reflection namespace; absolute names (leading dot)
// resolve from the root through it.
const root = temporal as unknown as ProtoRoot;

const typeCache = new Map<string, ProtoType>();

export function protoType(fullName: string): ProtoType {
  let type = typeCache.get(fullName);
  if (!type) {
    type = root.lookupType(`.${fullName}`);
    typeCache.set(fullName, type);
  }
  return type;
}

export interface MethodCodec {
  name: string;
  path: string;
  requestType: ProtoType;
  responseType: ProtoType;
}

/** Every method of a service with its resolved request/response types, computed once. */
export function serviceMethods(serviceName: string): MethodCodec[] {
  const service = root.lookupService(`.${serviceName}`);
  const servicePath = service.fullName.replace(/^\./, '');
  return Object.values(service.methods).map((method) => {
    method.resolve();
    if (!method.resolvedRequestType || !method.resolvedResponseType) {
      throw new Error(`Unresolved types for ${servicePath}/${method.name}`);
    }
    return {
      name: method.name,
      path: `/${servicePath}/${method.name}`,
      requestType: method.resolvedRequestType,
      responseType: method.resolvedResponseType,
    };
  });
}

export function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function encodeMessage(type: ProtoType, message: object): Buffer {
  return toBuffer(type.encode(message).finish());
}

export function decodeMessage(type: ProtoType, bytes: Uint8Array): Message {
  return type.toObject(type.decode(bytes), { longs: Number });
}

/** Packs a message into a `google.protobuf.Any`. */
export function packAny(typeName: string, message: object): { type_url: string; value: Buffer } {
  return { type_url: `type.googleapis.com/${typeName}`, value: encodeMessage(protoType(typeName), message) };
}

export function unpackAny(any: { type_url?: string; value?: Uint8Array } | undefined): {
  typeName: string;
  message: Message;
} {
  const typeName = (any?.type_url ?? '').replace(/^.*\//, '');
  if (!typeName) throw new Error('protocol message body has no type');
  return { typeName, message: decodeMessage(protoType(typeName), any?.value ?? new Uint8Array()) };
}

function varintSize(value: number): number {
  let size = 1;
  while (value >= 0x80) {
    value = Math.floor(value / 128);
    size++;
  }
  return size;
}

function writeVarint(target: Buffer, offset: number, value: number): number {
  while (value >= 0x80) {
    target[offset++] = (value & 0x7f) | 0x80;
    value = Math.floor(value / 128);
  }
  target[offset++] = value;
  return offset;
}

/**
 * Appends `parts` as one length-delimited field (`fieldNumber`) whose content is the repeated
 * field 1 of the given pre-encoded messages. This is how `History { repeated HistoryEvent events = 1 }`
 * is embedded into poll and history responses without re-encoding cached events.
 */
export function appendRepeatedSubmessage(base: Buffer, fieldNumber: number, parts: readonly Uint8Array[]): Buffer {
  let innerSize = 0;
  for (const part of parts) innerSize += 1 + varintSize(part.length) + part.length;
  const headerSize = varintSize((fieldNumber << 3) | 2) + varintSize(innerSize);
  const out = Buffer.allocUnsafe(base.length + headerSize + innerSize);
  base.copy(out, 0);
  let offset = writeVarint(out, base.length, (fieldNumber << 3) | 2);
  offset = writeVarint(out, offset, innerSize);
  for (const part of parts) {
    out[offset++] = (1 << 3) | 2;
    offset = writeVarint(out, offset, part.length);
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** Appends `part`, a pre-encoded message, as the length-delimited field `fieldNumber` of `base`. */
export function appendSubmessage(base: Buffer, fieldNumber: number, part: Uint8Array): Buffer {
  const tag = (fieldNumber << 3) | 2;
  const out = Buffer.allocUnsafe(base.length + varintSize(tag) + varintSize(part.length) + part.length);
  base.copy(out, 0);
  let offset = writeVarint(out, base.length, tag);
  offset = writeVarint(out, offset, part.length);
  out.set(part, offset);
  return out;
}

/** A response whose bytes are already final; the gRPC layer sends it as is. */
export class EncodedResponse {
  constructor(readonly bytes: Buffer) {}
}
