/**
 * The tables an RTF reader needs: the destinations of the RTF specification (1.9.1), the code page of each font
 * character set, and the Unicode characters of the symbol fonts.
 */

/**
 * The destinations of the RTF specification whose text is not part of the document body, and which older writers
 * write without `\*`: tables (fonts are read apart), document information, headers, footers, footnotes, annotations,
 * bookmarks, fields' instructions, pictures, objects, shapes, list definitions, mail merge, math and form fields.
 */
export const HIDDEN_DESTINATIONS: ReadonlySet<string> = new Set(
  (
    "aftncn aftnsep aftnsepc annotation atnauthor atndate atnicn atnid atnparent atnref atntime atrfend " +
    "atrfstart author background bkmkend bkmkstart blipuid buptim category colorschememapping colortbl " +
    "comment company creatim datafield datastore defchp defpap do doccomm docvar dptxbxtext ebcend ebcstart " +
    "factoidname falt fchars ffdeftext ffentrymcr ffexitmcr ffformat ffhelptext ffl ffname ffstattext file " +
    "filetbl fldinst fldtype fname fontemb fontfile footer footerf footerl footerr footnote formatConverter " +
    "formfield ftncn ftnsep ftnsepc g generator gridtbl header headerf headerl headerr hl hlfr hlinkbase " +
    "hlloc hlsrc hsv htmltag info keycode keywords latentstyles lchars levelnumbers leveltext lfolevel " +
    "linkval list listlevel listname listoverride listoverridetable listpicture liststylename listtable " +
    "lsdlockedexcept macc maccPr mailmerge maln malnScr manager margPr mbar mbarPr mbaseJc mbegChr mborderBox " +
    "mborderBoxPr mbox mboxPr mchr mcount mctrlPr md mdPr mdeg mdegHide mden mdiff me mendChr meqArr meqArrPr " +
    "mf mfName mfPr mfunc mfuncPr mgroupChr mgroupChrPr mgrow mhideBot mhideLeft mhideRight mhideTop mhtmltag " +
    "mlim mlimLoc mlimLow mlimLowPr mlimUpp mlimUppPr mm mmPr mmaddfieldname mmath mmathPict mmathPr mmaxDist " +
    "mmc mmcJc mmcPr mmconnectstr mmconnectstrdata mmcs mmdatasource mmheadersource mmmailsubject mmodso " +
    "mmodsofilter mmodsofldmpdata mmodsomappedname mmodsoname mmodsorecipdata mmodsosort mmodsosrc " +
    "mmodsotable mmodsoudl mmodsoudldata mmodsouniquetag mmquery mmr mnary mnaryPr mnoBreak mnum moMath " +
    "moMathPara moMathParaPr mobjDist mopEmu mphant mphantPr mplcHide mpos mr mrPr mrad mradPr msPre msPrePr " +
    "msSub msSubPr msSubSup msSubSupPr msSup msSupPr msepChr mshow mshp mstrikeBLTR mstrikeH mstrikeTLBR " +
    "mstrikeV msub msubHide msup msupHide mtransp mtype mvertJc mvfmf mvfml mvtof mvtol mzeroAsc mzeroDesc " +
    "mzeroWid nesttableprops nextfile nonesttables nonshppict objalias objclass objdata object objname " +
    "objsect objtime oldcprops oldpprops oldsprops oldtprops oleclsid operator panose password passwordhash " +
    "pgp pgptbl picprop pict pn pnseclvl pntxta pntxtb printim private propname protend protstart protusertbl " +
    "pxe result revtbl revtim rsidtbl rxe shp shpgrp shpinst shppict shprslt shptxt sn sp staticval " +
    "stylesheet subject sv svb tc template themedata title txe ud userprops wgrffmtfilter windowcaption " +
    "writereservation writereservhash xe xform xmlattrname xmlattrvalue xmlclose xmlname xmlnstbl xmlopen"
  ).split(" "),
);

/** The symbol character set (`\fcharset2`), and the code page RTF gives it. */
export const SYMBOL_CHARSET = 2;
export const SYMBOL_CODE_PAGE = 42;

/** The code page of each font character set (`\fcharsetN`); 1 is the default set, which keeps the document's. */
export const CHARSET_CODE_PAGES: ReadonlyMap<number, number> = new Map([
  [0, 1252],
  [SYMBOL_CHARSET, SYMBOL_CODE_PAGE],
  [77, 10000],
  [78, 10001],
  [79, 10003],
  [80, 10008],
  [81, 10002],
  [83, 10005],
  [84, 10004],
  [85, 10006],
  [86, 10081],
  [87, 10021],
  [88, 10029],
  [89, 10007],
  [128, 932],
  [129, 949],
  [130, 1361],
  [134, 936],
  [136, 950],
  [161, 1253],
  [162, 1254],
  [163, 1258],
  [177, 1255],
  [178, 1256],
  [186, 1257],
  [204, 1251],
  [222, 874],
  [238, 1250],
  [254, 437],
  [255, 850],
]);

/** The iconv-lite names of the Mac code pages (iconv-lite knows the Windows and DOS ones as "cpN"). */
export const MAC_ENCODINGS: ReadonlyMap<number, string> = new Map([
  [10000, "macintosh"],
  [10006, "macgreek"],
  [10007, "maccyrillic"],
  [10010, "macromania"],
  [10017, "macukraine"],
  [10021, "macthai"],
  [10029, "maccenteuro"],
  [10079, "maciceland"],
  [10081, "macturkish"],
  [10082, "maccroatian"],
]);

/** NUL marks a code with no character. */
const NONE = "\0";

/** The Symbol font, codes 0x20 to 0xFF: Adobe's Symbol encoding in Unicode. */
const SYMBOL =
  " !\u2200#\u2203%&\u220D()\u2217+,\u2212./" +
  "0123456789:;<=>?" +
  "\u2245\u0391\u0392\u03A7\u0394\u0395\u03A6\u0393\u0397\u0399\u03D1\u039A\u039B\u039C\u039D\u039F" +
  "\u03A0\u0398\u03A1\u03A3\u03A4\u03A5\u03C2\u03A9\u039E\u03A8\u0396[\u2234]\u22A5_" +
  "\u203E\u03B1\u03B2\u03C7\u03B4\u03B5\u03C6\u03B3\u03B7\u03B9\u03D5\u03BA\u03BB\u03BC\u03BD\u03BF" +
  "\u03C0\u03B8\u03C1\u03C3\u03C4\u03C5\u03D6\u03C9\u03BE\u03C8\u03B6{|}\u223C\0" +
  "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0" +
  "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0" +
  "\u20AC\u03D2\u2032\u2264\u2044\u221E\u0192\u2663\u2666\u2665\u2660\u2194\u2190\u2191\u2192\u2193" +
  "\u00B0\u00B1\u2033\u2265\u00D7\u221D\u2202\u2022\u00F7\u2260\u2261\u2248\u2026\u23D0\u23AF\u21B5" +
  "\u2135\u2111\u211C\u2118\u2297\u2295\u2205\u2229\u222A\u2283\u2287\u2284\u2282\u2286\u2208\u2209" +
  "\u2220\u2207\u00AE\u00A9\u2122\u220F\u221A\u22C5\u00AC\u2227\u2228\u21D4\u21D0\u21D1\u21D2\u21D3" +
  "\u25CA\u2329\u00AE\u00A9\u2122\u2211\u239B\u239C\u239D\u23A1\u23A2\u23A3\u23A7\u23A8\u23A9\u23AA" +
  "\0\u232A\u222B\u2320\u23AE\u2321\u239E\u239F\u23A0\u23A4\u23A5\u23A6\u23AB\u23AC\u23AD\0";

/**
 * The characters of the Wingdings fonts that have a Unicode counterpart a letter face prints: bullets, boxes,
 * arrows and the smiling face. Their other characters (pictograms) have none.
 */
const WINGDINGS: Record<string, Record<number, string>> = {
  wingdings: {
    74: "\u263A",
    82: "\u263C",
    108: "\u25CF",
    110: "\u25A0",
    111: "\u25A1",
    158: "\u00B7",
    159: "\u2022",
    160: "\u25AA",
    167: "\u25AA",
  },
  "wingdings 2": {
    93: "\u203D",
    149: "\u2022",
    150: "\u25CF",
    160: "\u25A0",
    184: "\u25CA",
    248: "\u203B",
    249: "\u2042",
  },
  "wingdings 3": {
    102: "\u2190",
    103: "\u2192",
    104: "\u2191",
    105: "\u2193",
    112: "\u25B2",
    113: "\u25BC",
    116: "\u25C4",
    117: "\u25BA",
    129: "\u25B2",
    130: "\u25BC",
  },
};

/** The fonts known to be symbol fonts by name, whatever character set a document gives them. */
export function isSymbolFontName(name: string): boolean {
  const key = name.trim().toLowerCase();
  return key === "symbol" || key === "webdings" || key in WINGDINGS;
}

/**
 * The character a symbol font draws for a code (0 to 255). A code with no Unicode counterpart becomes the private-use
 * character U+F000 + code, as Windows gives symbol fonts, which no letter face prints: the letter is refused rather
 * than printed with the wrong character.
 */
export function symbolCharacter(fontName: string, code: number): string {
  if (code === 0x20) return " ";
  const key = fontName.trim().toLowerCase();
  const found = key === "symbol" ? SYMBOL[code - 0x20] : WINGDINGS[key]?.[code];
  return found === undefined || found === NONE ? String.fromCharCode(0xf000 + code) : found;
}
