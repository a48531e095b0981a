/** Output schemas of the partial-extraction tests (core and pipeline): flat, and with an array and a nested object. */
export const renewLoanSchema = {
  type: 'object',
  properties: {
    member_id: { type: 'string' },
    book_id: { type: 'string' },
    branch: { type: 'string' },
    days: { type: 'integer' },
  },
  required: ['member_id', 'book_id', 'branch'],
};

export const feedbackSchema = {
  type: 'object',
  properties: {
    rating: { type: 'integer', minimum: 1, maximum: 5 },
    tags: { type: 'array', minItems: 1, items: { type: 'string' } },
    contact: {
      type: 'object',
      properties: { email: { type: 'string', format: 'email' }, phone: { type: 'string' } },
      required: ['email'],
      additionalProperties: false,
    },
  },
  required: ['rating', 'tags', 'contact'],
};
