// pg's value encoder (what its Bind message does with each parameter), which @types/pg does not declare.
declare module 'pg/lib/utils.js' {
  const utils: {
    /** A parameter as pg writes it: null, a string or a Buffer; throws on a value it cannot encode. */
    prepareValue(value: unknown): string | Buffer | null;
  };
  export default utils;
}
