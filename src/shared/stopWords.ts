/**
 * English function words, dropped when a text is turned into search terms:
 * they carry no subject, and an OR of them matches every passage.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  'a an and are as at be by can could did do does for from had has have how i in into is it its me my of on or our so than that the their them then there these they this those to us was we were what when where which while who why will with would you your about tell show explain'.split(' '),
);
