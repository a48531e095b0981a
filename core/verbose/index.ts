export * from './catalog';
export * from './resolve';
