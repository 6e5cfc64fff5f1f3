/** Something the paginator stacks down a page: a line, a blank line, a signature. */
export interface FlowBox {
  /** Height in points, including the space above the content. */
  height: number;
  /** True when this box must stand on the same page as the box before it. */
  keepWithPrevious: boolean;
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

/**
 * Stacks boxes down pages. A box goes on the current page when its whole height fits above the frame bottom,
 * otherwise a new page starts: nothing is ever cut at a page bottom. When the box that does not fit keeps with the
 * boxes before it, that chain moves to the new page together, unless the chain fills the page from its top (then the
 * page breaks before the box that does not fit). A box taller than a whole frame stands alone on its page.
 * Always returns at least one page.
 */
export function paginate<T extends FlowBox>(
  boxes: readonly T[],
  frameOf: (pageIndex: number) => Frame,
): PlacedBox<T>[][] {
  const pages: PlacedBox<T>[][] = [[]];
  let frame = frameOf(0);
  let cursor = frame.top;
  let pageStart = 0;

  for (let index = 0; index < boxes.length; index++) {
    const box = boxes[index]!;
    const page = pages[pages.length - 1]!;
    if (page.length === 0 || cursor + box.height <= frame.bottom + 1e-6) {
      page.push({ box, top: cursor });
      cursor += box.height;
      continue;
    }
    let chainStart = index;
    while (chainStart > pageStart && boxes[chainStart]!.keepWithPrevious) chainStart--;
    const moved = chainStart > pageStart && chainStart < index ? page.splice(chainStart - pageStart) : [];
    frame = frameOf(pages.length);
    cursor = frame.top;
    const next: PlacedBox<T>[] = [];
    for (const placed of [...moved.map((entry) => entry.box), box]) {
      next.push({ box: placed, top: cursor });
      cursor += placed.height;
    }
    pages.push(next);
    pageStart = index - moved.length;
  }
  return pages;
}
