export * from './record';
export * from './trace';
