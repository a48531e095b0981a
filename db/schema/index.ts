export * from './config-tables';
export * from './mcp-tables';
export * from './semantic-tables';
export * from './runtime-tables';
export * from './claim-tables';
