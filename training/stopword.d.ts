/** The part of the `stopword` package (v3, untyped) that training/query-terms.ts reads. */
declare module "stopword" {
  /** English stop words, lowercase. */
  export const eng: readonly string[];
}
