export * from './audit';
export * from './conversation';
export * from './history';
export * from './llm-call-log';
export * from './turn-request';
