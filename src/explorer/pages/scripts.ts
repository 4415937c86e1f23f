// The pages' few lines of browser script, inline and dependency-free (no build step). None of them inserts
// chain or user data as HTML: the live view swaps in a fragment the server rendered (escaped), the others set
// textContent or draw SVG elements from numbers.

/** Home: refresh the latest blocks and transactions every 2 s (the block interval) without a reload. */
export const LIVE_SCRIPT = `
(function(){var el=document.getElementById('live');if(!el)return;
setInterval(function(){fetch('/live',{cache:'no-store'}).then(function(r){return r.ok?r.text():null}).then(function(t){if(t!==null)el.innerHTML=t}).catch(function(){})},2000);})();
`;

/** Ops: one small line chart per metric series, drawn as SVG from the JSON block the server embedded. */
export const OPS_CHART_SCRIPT = `
(function(){var src=document.getElementById('ops-series'),box=document.getElementById('ops-charts');if(!src||!box)return;
var NS='http://www.w3.org/2000/svg',series=JSON.parse(src.textContent);
series.forEach(function(s){if(s.points.length===0)return;var w=520,h=120,p=28;
var xs=s.points.map(function(q){return q[0]}),ys=s.points.map(function(q){return q[1]});
var x0=Math.min.apply(null,xs),x1=Math.max.apply(null,xs),y0=Math.min.apply(null,ys),y1=Math.max.apply(null,ys);
if(x1===x0)x1=x0+1;if(y1===y0)y1=y0+1;
var fig=document.createElement('figure');fig.className='chart';fig.style.margin='0 0 12px';
var cap=document.createElement('figcaption');cap.textContent=s.name+' (last '+ys[ys.length-1]+')';fig.appendChild(cap);
var svg=document.createElementNS(NS,'svg');svg.setAttribute('width',w);svg.setAttribute('height',h);svg.setAttribute('viewBox','0 0 '+w+' '+h);
var pts=s.points.map(function(q){return (p+(q[0]-x0)/(x1-x0)*(w-2*p)).toFixed(1)+','+(h-p-(q[1]-y0)/(y1-y0)*(h-2*p)).toFixed(1)}).join(' ');
var axis=document.createElementNS(NS,'path');axis.setAttribute('d','M'+p+' '+(h-p)+'H'+(w-p)+'M'+p+' '+p+'V'+(h-p));axis.setAttribute('stroke','#ccd');axis.setAttribute('fill','none');svg.appendChild(axis);
var line=document.createElementNS(NS,'polyline');line.setAttribute('points',pts);line.setAttribute('fill','none');line.setAttribute('stroke','#3456d1');line.setAttribute('stroke-width','2');svg.appendChild(line);
[[y1,p],[y0,h-p]].forEach(function(l){var t=document.createElementNS(NS,'text');t.setAttribute('x',2);t.setAttribute('y',l[1]+4);t.setAttribute('font-size','10');t.textContent=String(l[0]);svg.appendChild(t)});
fig.appendChild(svg);box.appendChild(fig);});})();
`;

/** Verify: submit to SPEC's verification API and poll the job until it ends. */
export const VERIFY_SCRIPT = `
(function(){var f=document.getElementById('verify-form'),out=document.getElementById('verify-status');if(!f||!out)return;
function show(t,cls){out.textContent=t;out.className=cls||''}
f.addEventListener('submit',function(ev){ev.preventDefault();
var v=function(id){return document.getElementById(id).value.trim()};
var body={address:v('v-address'),compilerVersion:v('v-compiler'),contractName:v('v-name')};
if(document.getElementById('v-kind').value==='standard-json'){try{body.standardJsonInput=JSON.parse(v('v-source'))}catch(e){show('The standard JSON input is not valid JSON: '+e.message,'bad');return}}
else{body.sourceCode=v('v-source');body.optimizer={enabled:document.getElementById('v-optimizer').checked,runs:Number(v('v-runs')||'200')}}
if(v('v-args')!=='')body.constructorArguments=v('v-args');
show('Submitting…','muted');
fetch('/api/verify/submit',{method:'POST',headers:{'content-type':'application/json'},body:JSON.stringify(body)}).then(function(r){return r.json()}).then(function(j){
if(!j.id){show('Refused: '+(j.message||j.error||JSON.stringify(j)),'bad');return}
var poll=function(){fetch('/api/verify/status?id='+encodeURIComponent(j.id)).then(function(r){return r.json()}).then(function(s){
if(s.status==='verified'){show('Verified ('+s.match+' match). ','ok');var a=document.createElement('a');a.href='/address/'+body.address.toLowerCase();a.textContent='Open the contract';out.appendChild(a)}
else if(s.status==='failed'){show('Failed: '+(s.reason||s.message||'unknown reason'),'bad')}
else{show('Job '+j.id+': '+s.status+'…','muted');setTimeout(poll,1000)}}).catch(function(e){show('Status request failed: '+e.message,'bad')})};poll();
}).catch(function(e){show('Submit failed: '+e.message,'bad')})});})();
`;
