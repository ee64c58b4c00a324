/* report_timeline_html.c - the timeline as one self-contained page: the SVG
 * picture inline (report_timeline_svg.c), the buffers at each peak as a
 * table, inline CSS and a little inline script for a card on hover or click
 * and for zoom. No network, no fonts: without the script the picture, its
 * tooltips (<title>) and the tables are all there. */
#include "timeline.h"
#include <string.h>

#define TABLE_ROWS 100

static const char css[] =
	"body{font-family:sans-serif;margin:16px;color:#222;background:#fff}"
	"h1{font-size:18px;margin:0 0 4px}p.sub{margin:0 0 10px;color:#555}"
	"#zoom{margin:6px 0}#zoom button{margin-right:4px}"
	"#view{overflow:auto;border:1px solid #ddd;max-height:none}"
	"#card{position:fixed;right:16px;top:16px;max-width:520px;max-height:70vh;overflow:auto;"
	"background:#fffef4;border:1px solid #b9a;box-shadow:0 2px 8px rgba(0,0,0,.25);"
	"padding:8px 10px;font:12px monospace;white-space:pre-wrap;display:none;z-index:2}"
	"table{border-collapse:collapse;margin:6px 0 14px;font-size:12px}"
	"td,th{border:1px solid #ddd;padding:2px 6px;text-align:left}td.b{text-align:right}"
	"details{margin:8px 0}.bar,.mark{cursor:pointer}.sel{stroke:#000;stroke-width:1.5}";

/* The card: the <title> text of the bar or mark under the pointer; a click
 * keeps it. Zoom widens the picture inside its scrolling box. */
static const char js[] =
	"(function(){var card=document.getElementById('card'),keep=null,z=1;"
	"var svg=document.querySelector('svg.timeline'),w0=svg.getAttribute('width')|0,"
	"h0=svg.getAttribute('height')|0;"
	"function el(e){var n=e.target;while(n&&n!==svg){if(n.classList&&(n.classList.contains('bar')"
	"||n.classList.contains('mark')))return n;n=n.parentNode;}return null;}"
	"function show(n){var t=n&&n.querySelector('title');if(!t){card.style.display='none';return;}"
	"card.textContent=t.textContent;card.style.display='block';}"
	"svg.addEventListener('mouseover',function(e){if(!keep)show(el(e));});"
	"svg.addEventListener('click',function(e){var n=el(e);if(keep)keep.classList.remove('sel');"
	"keep=n;if(n){n.classList.add('sel');var p=n.getAttribute('data-panel');"
	"if(p&&e.detail>1){var q=document.getElementById('panel-'+p);if(q)q.scrollIntoView();}}show(n);});"
	"function zoom(f){z=f?Math.max(1,Math.min(64,z*f)):1;svg.setAttribute('width',w0*z);"
	"svg.setAttribute('height',h0);svg.setAttribute('preserveAspectRatio','none');}"
	"document.getElementById('zin').onclick=function(){zoom(2);};"
	"document.getElementById('zout').onclick=function(){zoom(0.5);};"
	"document.getElementById('zreset').onclick=function(){zoom(0);};"
	"document.getElementById('zoom').style.display='block';})();";

static void peak_table(FILE *f, const struct tl_panel *p, int32_t pi)
{
	char by[32], src[512];
	tl_format_bytes(p->peak, by, sizeof(by));
	fprintf(f, "<details class=\"peak-table\" data-panel=\"%d\"%s><summary>", (int)pi,
		pi == 0 ? " open" : "");
	tl_xml_escape(f, p->comp->name);
	fprintf(f, ": %d buffers live at the peak (%s, position %d)</summary>\n<table><tr><th>#</th>"
		   "<th>bytes</th><th>kind</th><th>owner</th><th>buffer</th><th>source</th></tr>\n",
		(int)p->n_peak_rows, by, (int)p->peak_pos);
	for (int32_t k = 0; k < p->n_peak_rows && k < TABLE_ROWS; k++) {
		const struct tl_peak_row *r = &p->peak_rows[k];
		tl_format_bytes(r->bytes, by, sizeof(by));
		tl_source(r->def, src, sizeof(src));
		fprintf(f, "<tr><td>%d</td><td class=\"b\">%s</td><td>%s</td><td>", (int)k + 1, by,
			r->buffer < 0 ? "nested (loop body)" : tl_kind_name((enum tl_kind)r->kind));
		tl_xml_escape(f, r->def->name);
		if (r->buffer >= 0)
			fprintf(f, "</td><td>%d</td><td>", (int)r->buffer);
		else
			fputs("</td><td>-</td><td>", f);
		if (!src[0] && r->def->opcode == OP_PARAMETER && r->def->op_name) {
			fputs("argument ", f);
			tl_xml_escape(f, r->def->op_name);
		} else {
			tl_xml_escape(f, src);
		}
		fputs("</td></tr>\n", f);
	}
	if (p->n_peak_rows > TABLE_ROWS)
		fprintf(f, "<tr><td colspan=\"6\">... and %d more</td></tr>\n",
			(int)(p->n_peak_rows - TABLE_ROWS));
	fputs("</table></details>\n", f);
}

int timeline_write_html(FILE *f, const struct timeline *t)
{
	const char *name = t->m->name ? t->m->name : "";
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n<title>", f);
	tl_xml_escape(f, name);
	fprintf(f, " - hloproof timeline</title>\n<style>%s</style></head><body>\n", css);
	fputs("<h1>Ownership timeline of ", f);
	tl_xml_escape(f, name);
	fputs("</h1>\n<p class=\"sub\">", f);
	tl_xml_escape(f, t->m->file ? t->m->file : "");
	fprintf(f, " &middot; x axis: ");
	tl_xml_escape(f, tl_order_name(t));
	fprintf(f, " &middot; %d copies, %d hazards in the module &middot; hover a bar or mark for "
		   "its card, click to keep it</p>\n", (int)t->n_copies, (int)t->n_hazards);
	fputs("<div id=\"zoom\" style=\"display:none\"><button id=\"zin\">zoom in</button>"
	      "<button id=\"zout\">zoom out</button><button id=\"zreset\">reset</button></div>\n"
	      "<div id=\"view\">\n", f);
	if (timeline_write_svg(f, t, 1) < 0)
		return -1;
	fputs("</div>\n", f);
	for (int32_t k = 0; k < t->n_panels; k++)
		peak_table(f, &t->panels[k], k);
	fputs("<div id=\"card\"></div>\n<script>", f);
	fputs(js, f);
	fputs("</script>\n</body></html>\n", f);
	return ferror(f) ? -1 : 0;
}
