/** A template file split into its front matter and its Handlebars body. */
export interface ParsedTemplate {
  readonly body: string;
  /** Variables the template declares it needs (front matter `params:`). */
  readonly params: readonly string[];
  /** Lines taken by the front matter, to turn body line numbers into file line numbers. */
  readonly bodyLineOffset: number;
}
