/** Something the paginator stacks down a page: a line, a blank line, a table row, a signature. */
export interface FlowBox {
  /** Height in points, including the space above the content. */
  height: number;
  /** True when this box must stand on the same page as the box before it. */
  keepWithPrevious: boolean;
  /** True for space between blocks, which is dropped where the page breaks (never set at the top of a page). */
  collapsible?: boolean;
}

/** The usable vertical band of a page, in points from the top edge. */
export interface Frame {
  top: number;
  bottom: number;
}

export interface PlacedBox<T extends FlowBox> {
  box: T;
  /** Top of the box, in points from the top edge of its page. */
  top: number;
}

export interface PaginateOptions<T extends FlowBox> {
  /** Boxes to set first on a page that `box` starts (the header rows of the table a row belongs to). */
  headerOf?: (box: T) => readonly T[] | undefined;
}

const EPSILON = 1e-6;

/**
 * Stacks boxes down pages. A box goes on the current page when its whole height fits above the frame bottom,
 * otherwise a new page starts: nothing is ever cut at a page bottom. When the box that does not fit keeps with the
 * boxes before it, that chain moves to the new page together, unless the chain fills the page from its top (then the
 * page breaks before the box that does not fit). A box taller than a whole frame stands alone on its page.
 * Collapsible space is dropped where it would start a page or does not fit at the bottom of one. A page started by
 * a box with a header (`headerOf`) begins with that header. Always returns at least one page.
 */
export function paginate<T extends FlowBox>(
  boxes: readonly T[],
  frameOf: (pageIndex: number) => Frame,
  options: PaginateOptions<T> = {},
): PlacedBox<T>[][] {
  const pages: PlacedBox<T>[][] = [[]];
  let frame = frameOf(0);
  let cursor = frame.top;
  /** For every box on the current page, its index in `boxes` (-1 for a repeated header). */
  let indexes: number[] = [];
  /** Index of the first box of the flow on the current page. */
  let pageStart = 0;

  const place = (box: T, index: number): void => {
    pages[pages.length - 1]!.push({ box, top: cursor });
    indexes.push(index);
    cursor += box.height;
  };

  for (let index = 0; index < boxes.length; index++) {
    const box = boxes[index]!;
    const page = pages[pages.length - 1]!;
    const fits = cursor + box.height <= frame.bottom + EPSILON;
    if (box.collapsible) {
      if (page.length > 0 && fits) place(box, index);
      if (page.length === 0) pageStart = index + 1;
      continue;
    }
    if (page.length === 0 || fits) {
      place(box, index);
      continue;
    }

    let chainStart = index;
    while (chainStart > pageStart && boxes[chainStart]!.keepWithPrevious) chainStart--;
    const cut =
      chainStart > pageStart && chainStart < index ? indexes.findIndex((at) => at >= chainStart) : -1;
    const moved: { box: T; index: number }[] = [];
    if (cut >= 0) {
      for (const [offset, placed] of page.splice(cut).entries()) {
        moved.push({ box: placed.box, index: indexes[cut + offset]! });
      }
    }
    moved.push({ box, index });
    while (moved.length > 1 && moved[0]!.box.collapsible) moved.shift();

    pages.push([]);
    indexes = [];
    frame = frameOf(pages.length - 1);
    cursor = frame.top;
    pageStart = moved[0]!.index;
    for (const header of options.headerOf?.(moved[0]!.box) ?? []) place(header, -1);
    for (const entry of moved) place(entry.box, entry.index);
  }
  return pages;
}
