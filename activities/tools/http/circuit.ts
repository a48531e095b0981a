import { EngineError, ErrorType } from '../../../core/errors';

/**
 * Per-tool circuit breakers, in memory per worker (§6.10). After `threshold` consecutive failed
 * calls the circuit opens and calls fail fast for `openMs`; then one trial call is let through
 * (half-open): success closes the circuit, failure opens it again.
 */
export interface CircuitSettings {
  enabled: boolean;
  threshold: number;
  openMs: number;
}

interface CircuitState {
  failures: number;
  openUntil: number;
  halfOpen: boolean;
}

export type CircuitPhase = 'CLOSED' | 'OPEN' | 'HALF_OPEN';

export class CircuitRegistry {
  private readonly states = new Map<string, CircuitState>();

  constructor(private readonly now: () => number = Date.now) {}

  private state(toolCode: string): CircuitState {
    let state = this.states.get(toolCode);
    if (!state) {
      state = { failures: 0, openUntil: 0, halfOpen: false };
      this.states.set(toolCode, state);
    }
    return state;
  }

  phase(toolCode: string): CircuitPhase {
    const state = this.states.get(toolCode);
    if (!state || state.openUntil === 0) return 'CLOSED';
    return this.now() < state.openUntil ? 'OPEN' : 'HALF_OPEN';
  }

  /** Throws TOOL_CIRCUIT_OPEN while open; lets one trial through once the open window has passed. */
  beforeCall(toolCode: string, settings: CircuitSettings): void {
    if (!settings.enabled) return;
    const state = this.state(toolCode);
    if (state.openUntil === 0) return;
    const remaining = state.openUntil - this.now();
    if (remaining > 0 || state.halfOpen) {
      throw new EngineError(
        ErrorType.ToolCircuitOpen,
        `Circuit open for tool ${toolCode} (retry in ${Math.max(remaining, 0)} ms)`,
        { details: { toolCode, remainingMs: Math.max(remaining, 0) } }
      );
    }
    state.halfOpen = true;
  }

  onSuccess(toolCode: string): void {
    this.states.delete(toolCode);
  }

  onFailure(toolCode: string, settings: CircuitSettings): void {
    if (!settings.enabled) return;
    const state = this.state(toolCode);
    state.failures += 1;
    if (state.halfOpen || state.failures >= settings.threshold) {
      state.openUntil = this.now() + settings.openMs;
      state.halfOpen = false;
    }
  }
}
