/// The fixed word and name lists the text generators draw from.
///
/// They are data, not randomness: changing a list changes every fixture's digest, so bump
/// ``FixtureManifest/currentGeneratorVersion`` when editing them.
/// ```swift
/// WordLists.latinGiven.count
/// ```
package enum WordLists {
    /// Given names in Latin script, many with diacritics.
    package static let latinGiven: [String] = [
        "Amélie", "Zoë", "José", "Søren", "Björn", "Łukasz", "Ångström", "Chloé", "Renée", "Noël",
        "François", "Jürgen", "Dvořák", "Małgorzata", "Íñigo", "Ana", "João", "Ayşe", "Çağla", "Oğuz",
        "Mateo", "Emma", "Liam", "Olivia", "Hugo", "Inès", "Léa", "Sébastien", "Tomáš", "Žofie",
        "Ørjan", "Þóra", "Gísli", "Eliška", "Ugnė", "Mārtiņš", "Zsófia", "Grégoire", "Maëlle", "Nuño",
    ]
    /// Family names in Latin script, many with diacritics.
    package static let latinFamily: [String] = [
        "Müller", "García", "Núñez", "Søndergaard", "Kowalski", "Øster", "Dupré", "Żółć", "Öztürk", "Nováková",
        "Hernández", "Łopez", "Brontë", "Gauß", "Smith", "Jones", "Martin", "Bernard", "Rossi", "Ferreira",
        "Pérez", "Ivanović", "Kovač", "Szabó", "Nagy", "Jansen", "De Vries", "Lefèvre", "Åberg", "Ní Bhriain",
    ]
    /// Given names in Cyrillic script.
    package static let cyrillicGiven: [String] = [
        "Александр", "Мария", "Дмитрий", "Анна", "Сергей", "Елена", "Иван", "Ольга", "Николай", "Татьяна",
        "Алексей", "Наталья", "Андрей", "Юлия", "Михаил", "Светлана", "Владимир", "Ирина", "Богдан", "Олена",
    ]
    /// Family names in Cyrillic script.
    package static let cyrillicFamily: [String] = [
        "Иванов", "Смирнова", "Кузнецов", "Попова", "Васильев", "Петрова", "Соколов", "Михайлова", "Новиков",
        "Фёдорова",
        "Морозов", "Волкова", "Шевченко", "Коваленко", "Бондаренко", "Ткаченко", "Петров", "Ёлкина", "Зайцев", "Щукина",
    ]
    /// Family names in CJK script (written first).
    package static let cjkFamily: [String] = [
        "王", "李", "張", "刘", "陈", "杨", "黄", "赵", "周", "吴", "佐藤", "鈴木", "高橋", "田中", "渡辺",
        "伊藤", "山本", "中村", "小林", "加藤",
    ]
    /// Given names in CJK script.
    package static let cjkGiven: [String] = [
        "伟", "芳", "娜", "秀英", "敏", "静", "丽", "强", "磊", "军", "洋", "勇", "艳", "杰", "翔太",
        "陽菜", "蓮", "結衣", "大翔", "さくら",
    ]
    /// Everyday English words, for text, product names and tags.
    package static let english: [String] = [
        "apple", "river", "stone", "light", "cloud", "garden", "silver", "orange", "window", "paper",
        "forest", "summer", "winter", "market", "candle", "bridge", "harbor", "meadow", "copper", "velvet",
        "thunder", "maple", "anchor", "lantern", "pepper", "ribbon", "saddle", "timber", "violet", "walnut",
        "amber", "basket", "castle", "desert", "engine", "feather", "glacier", "hammer", "island", "jacket",
        "kettle", "ladder", "mirror", "needle", "ocean", "pillow", "quartz", "rocket", "shadow", "tunnel",
        "umbrella", "valley", "wagon", "yellow", "zephyr", "blossom", "canyon", "dragon", "ember", "falcon",
        "granite", "horizon", "ivory", "jungle", "kernel", "lemon", "marble", "nectar", "orchid", "pebble",
        "quiet", "rapid", "scarlet", "tender", "urban", "vivid", "wild", "young", "zesty", "bright",
        "calm", "dusty", "early", "fresh", "gentle", "humble", "icy", "jolly", "keen", "lucky",
        "mellow", "noble", "olive", "proud", "rustic", "sunny", "tidy", "upper", "warm", "brave",
    ]
    /// Words in other scripts, for the unicode-heavy trait.
    package static let unicodeWords: [String] = [
        "яблоко", "река", "камень", "свет", "облако", "сад", "серебро", "окно", "бумага", "лес",
        "苹果", "河流", "石头", "光", "云", "花园", "银", "窗户", "纸", "森林",
        "りんご", "かわ", "いし", "ひかり", "くも", "νερό", "φως", "πέτρα", "σύννεφο", "κήπος",
        "café", "naïve", "façade", "smörgåsbord", "crème", "jalapeño", "piñata", "über", "résumé", "coöperate",
        "사과", "강", "돌", "빛", "구름", "תפוח", "נהר", "تفاحة", "نهر", "🍎",
    ]
    /// Email domains (reserved example domains only).
    package static let domains: [String] = [
        "example.com", "example.org", "example.net", "mail.example", "test.example", "corp.example",
    ]
}
