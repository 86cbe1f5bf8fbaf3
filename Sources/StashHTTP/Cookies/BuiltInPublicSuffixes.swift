/// The suffixes ``PublicSuffixList/builtIn`` knows when the system has no list: the
/// second-level registries of the largest country domains and the shared hosting domains
/// most often met. Every single label (`com`, `de`) is a public suffix without a rule.
enum BuiltInPublicSuffixes {
    static let rules = """
        ac.uk co.uk gov.uk ltd.uk me.uk net.uk nhs.uk org.uk plc.uk police.uk sch.uk
        ac.jp ad.jp co.jp ed.jp go.jp gr.jp lg.jp ne.jp or.jp
        com.au net.au org.au edu.au gov.au asn.au id.au
        com.cn net.cn org.cn gov.cn edu.cn ac.cn
        com.br net.br org.br gov.br edu.br
        co.in net.in org.in gov.in ac.in firm.in gen.in ind.in
        co.nz net.nz org.nz govt.nz ac.nz school.nz
        co.za net.za org.za gov.za ac.za
        co.kr or.kr ne.kr go.kr ac.kr
        com.mx net.mx org.mx gob.mx edu.mx
        com.ar com.tr com.tw com.hk com.sg com.my com.ph com.pk com.sa com.eg com.ua com.pl
        co.il co.id co.th co.ke co.jp co.at or.at gv.at
        com.es nom.es org.es gob.es edu.es
        gouv.fr asso.fr
        github.io githubusercontent.com gitlab.io herokuapp.com blogspot.com appspot.com
        cloudfront.net azurewebsites.net cloudapp.net vercel.app netlify.app pages.dev
        workers.dev web.app firebaseapp.com fly.dev onrender.com glitch.me
        *.compute.amazonaws.com s3.amazonaws.com elasticbeanstalk.com
        *.ck !www.ck *.kawasaki.jp !city.kawasaki.jp
        """
        .split(whereSeparator: \.isWhitespace).joined(separator: "\n")
}
