import * as v8 from 'node:v8';
import * as vm from 'node:vm';

/**
 * The V8 collector, exposed at run time when node was started without --expose-gc (as `npm run bench` and Jest
 * are): what a test needs to show that something is held only weakly.
 */
export function collector(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}
