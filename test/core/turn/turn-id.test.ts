import { canonicalTurnId, turnIdParts } from '../../../core/turn/turn-id';

describe('turn ids', () => {
  const uuid = 'df240ce3-6b1c-4c1e-9a3f-0d5e2b7c9a11';

  it('names a turn by the lower-case UUID, whatever case it was written in', () => {
    expect(canonicalTurnId(`turn-${uuid.toUpperCase()}-3`)).toBe(`turn-${uuid}-3`);
    expect(canonicalTurnId(`turn-${uuid}-3`)).toBe(`turn-${uuid}-3`);
    expect(turnIdParts(`turn-${uuid.toUpperCase()}-3`)).toEqual({
      uuid: uuid.toUpperCase(),
      conversationId: uuid,
      turnNumber: 3,
    });
  });

  it.each([`turn-${uuid}-0`, `turn-${uuid}-03`, `turn-${uuid}-1234567890`, `turn-x-1`, `${uuid}`, 'my-workflow'])(
    '%s is no turn id',
    (text) => {
      expect(canonicalTurnId(text)).toBeNull();
    }
  );
});
