import assert from "node:assert/strict";
import { test } from "node:test";
import { slugify } from "../src/slugify.js";

test("lowercases and joins words with dashes", () => {
  assert.equal(slugify("Hello World"), "hello-world");
});

test("drops punctuation", () => {
  assert.equal(slugify("Hello, World!"), "hello-world");
});

test("collapses runs of spaces and trims the ends", () => {
  assert.equal(slugify("  Many   spaces here  "), "many-spaces-here");
});
