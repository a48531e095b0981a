/**
 * Told when a child process (initdb on a first start, then the server) has been spawned: a caller can load its
 * own modules while it works. May be told more than once.
 */
export interface LaunchEvents {
  onSpawn?(): void;
}
